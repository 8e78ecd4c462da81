"""Does a text hold any of a set of words? In few scans: the prefilter's and the linker's test."""

from __future__ import annotations

import functools


def any_word(text: bytes, words) -> bool:
    """Does any of words (bytes) occur in text? Through their anchors (castlint.prefilter.has_trigger)."""
    for anchor, covered in _anchors(tuple(words)):
        if anchor in text and any(word in text for word in covered):
            return True
    return False


@functools.lru_cache(maxsize=256)
def _anchors(words: tuple) -> tuple:
    """((anchor, words containing it), ...) such that every word contains some anchor.

    Greedy set cover over the words' substrings of 4 to 12 bytes: few anchors, so
    that a text with none of the words is rejected in a few scans."""
    left = [w for w in dict.fromkeys(words)]
    out = []
    while left:
        counts = {}
        for word in left:
            subs = {word[i:j] for i in range(len(word)) for j in range(i + 4, min(len(word), i + 12) + 1)}
            for sub in subs or {word}:
                counts[sub] = counts.get(sub, 0) + 1
        anchor = max(counts, key=lambda sub: (counts[sub], len(sub), sub))
        covered = tuple(w for w in left if anchor in w)
        out.append((anchor, covered))
        left = [w for w in left if anchor not in w]
    return tuple(out)
