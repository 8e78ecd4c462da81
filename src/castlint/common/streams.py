"""Standard streams a caller closed (`castlint check . >&-`): one clear line, never a traceback.

Python sets sys.stdout to None when fd 1 is closed at start-up. castlint then
(1) puts /dev/null on every closed standard fd, so that no file castlint opens
later (a temp file of a fix, the cache) takes fd 0, 1 or 2 and receives what a
worker or a library writes there; (2) replaces a missing sys.stdout with a
stream whose first write raises StreamClosed, which castlint.cli.main turns
into `castlint: error: standard output is closed ...` and exit 2. A run that
writes nothing to stdout (`-o FILE`, `fix` without a report) is not affected.
"""

from __future__ import annotations

import io
import os
import sys


class StreamClosed(Exception):
    """A write to a standard stream the caller closed."""


class ClosedStream(io.TextIOBase):
    """Stands for a closed stdout: reads as not a terminal, fails on the first write."""

    def __init__(self, name: str, hint: str = ""):
        super().__init__()
        self._message = f"{name} is closed: nothing can be written to it" + (f" ({hint})" if hint else "")

    @property
    def encoding(self) -> str:
        return "utf-8"

    @property
    def errors(self) -> str:
        return "strict"

    @property
    def buffer(self):
        raise StreamClosed(self._message)

    def isatty(self) -> bool:
        return False

    def writable(self) -> bool:
        return True

    def fileno(self) -> int:
        raise StreamClosed(self._message)

    def write(self, text) -> int:
        if not text:
            return 0
        raise StreamClosed(self._message)

    def flush(self) -> None:
        pass


def _closed(fd: int) -> bool:
    try:
        os.fstat(fd)
    except OSError:
        return True
    return False


def guard_standard_streams() -> None:
    """See the module docs. Safe to call more than once."""
    for fd in (0, 1, 2):
        if _closed(fd):
            try:
                null = os.open(os.devnull, os.O_RDWR)
                if null != fd:
                    os.dup2(null, fd)
                    os.close(null)
            except OSError:
                pass
    if sys.stdout is None:
        sys.stdout = ClosedStream("standard output", "write the report to a file with -o FILE")
    if sys.stderr is None:
        sys.stderr = open(os.devnull, "w", encoding="utf-8")
    if sys.stdin is None:
        sys.stdin = open(os.devnull, "r", encoding="utf-8")
