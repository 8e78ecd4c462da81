"""One `ast.parse` per source: the pruner and the learnt-accessor pass read the same tree."""

from __future__ import annotations

import ast

_LAST: list = [None, None]  # [source, tree or the exception it raised]


def parse(source: bytes) -> ast.Module:
    """ast.parse(source), parsed once for consecutive callers of the same bytes (the trees
    are read, never changed)."""
    if _LAST[0] is not source:
        try:
            _LAST[1] = ast.parse(source)
        except BaseException as exc:  # noqa: BLE001 - re-raised to every caller
            _LAST[1] = exc
        _LAST[0] = source
    if isinstance(_LAST[1], BaseException):
        raise _LAST[1]
    return _LAST[1]


def parsed(source: bytes) -> bool:
    """Has parse() already seen these very bytes (its answer is then free)?"""
    return _LAST[0] is source
