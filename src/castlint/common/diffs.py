"""Unified diffs of a file's text, as `git diff` writes them."""

from __future__ import annotations

import difflib
from typing import Sequence

NO_NEWLINE = "\\ No newline at end of file\n"


def unified_diff(path: str, old: Sequence[str], new: Sequence[str]) -> str:
    """A unified diff (3 lines of context) between two lists of lines (keepends=True)."""
    lines = difflib.unified_diff(list(old), list(new), fromfile=f"a/{path}", tofile=f"b/{path}")
    return "".join(line if line.endswith("\n") else line + "\n" + NO_NEWLINE for line in lines)


def unified_diff_text(path: str, old: str, new: str) -> str:
    return unified_diff(path, old.splitlines(keepends=True), new.splitlines(keepends=True))
