"""Does a text hold any of a set of words? In few scans: the prefilter's and the linker's test."""

from __future__ import annotations

import functools


def any_word(text: bytes, words) -> bool:
    """Does any of words (bytes) occur in text? Through their anchors (castlint.prefilter.has_trigger).
    A word holds its anchor at a known offset: where the anchor occurs a few times, the words are
    matched there (startswith) instead of each searched for in the whole text."""
    for anchor, covered, shapes in _placed(words if type(words) is tuple else tuple(words)):
        i = text.find(anchor)
        if i < 0:
            continue
        if len(covered) == 1:
            if covered[0][0] in text:
                return True
            continue
        if shapes is not None:
            # many words of a few shapes (the anchor at one offset, one length: `tensor(a`,
            # `tensor(b`, ...): the bytes around each occurrence are looked up, whatever their number
            while i >= 0:
                for at, length, group in shapes:
                    if i >= at and text[i - at : i - at + length] in group:
                        return True
                i = text.find(anchor, i + 1)
            continue
        seen = 0
        while i >= 0:
            for word, at in covered:
                if i >= at and text.startswith(word, i - at):
                    return True
            seen += 1
            if seen > 8:  # a common anchor: the words through longer (rarer) anchors of theirs
                if _any_long(text, covered):
                    return True
                break
            i = text.find(anchor, i + 1)
    return False


@functools.lru_cache(maxsize=256)
def _placed(words: tuple) -> tuple:
    """_anchors, each covered word with the offset of its anchor in it, and the words' shapes
    ((offset, length, the words of that shape), ...) where they are many words of few shapes
    (None otherwise)."""
    out = []
    for anchor, covered in _anchors(words):
        placed = tuple((w, w.find(anchor)) for w in covered)
        shapes: dict = {}
        for w, at in placed:
            shapes.setdefault((at, len(w)), set()).add(w)
        few = len(placed) >= 16 and len(shapes) * 8 <= len(placed)
        grouped = tuple((at, length, frozenset(ws)) for (at, length), ws in shapes.items()) if few else None
        out.append((anchor, placed, grouped))
    return tuple(out)


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


def _any_long(text: bytes, covered: tuple) -> bool:
    """Does any word of covered ((word, offset), ...) occur in text? Through anchors of 8 bytes or more."""
    for anchor, words in _long_anchors(tuple(w for w, _ in covered)):
        if anchor not in text:
            continue
        if len(words) == 1 or any(word in text for word in words):
            return True
    return False


@functools.lru_cache(maxsize=256)
def _long_anchors(words: tuple) -> tuple:
    left = list(dict.fromkeys(words))
    out = []
    while left:
        counts = {}
        for word in left:
            subs = {word[i:j] for i in range(len(word)) for j in range(i + 8, min(len(word), i + 16) + 1)}
            for sub in subs or {word}:
                counts[sub] = counts.get(sub, 0) + 1
        anchor = max(counts, key=lambda sub: (counts[sub], len(sub), sub))
        out.append((anchor, tuple(w for w in left if anchor in w)))
        left = [w for w in left if anchor not in w]
    return tuple(out)
