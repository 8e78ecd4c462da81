"""Release numbers as tuples: '0.6.14' -> (0, 6, 14); '0.7.2.post1' -> (0, 7, 2)."""
from __future__ import annotations

import re

_RELEASE = re.compile(r"\d+(?:\.\d+)*")


def parse_version(text: str) -> tuple:
    """The numeric release of a version string; () when it has none."""
    match = _RELEASE.match(str(text).strip())
    return tuple(int(part) for part in match.group(0).split(".")) if match else ()


def at_least(version: str, since: str) -> bool:
    """Is version the release `since` or later? An unparsable version is not."""
    have = parse_version(version)
    return bool(have) and have >= parse_version(since)
