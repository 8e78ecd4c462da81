"""Safe writes: atomic (temp file + rename), keeping mode and bytes we did not mean to change.

The codemods work on libcst modules, which round-trip the file's encoding, BOM
and line endings byte for byte; this module makes sure the write itself cannot
lose data: a file that changed on disk since it was read is not overwritten,
and an interrupted write leaves either the old or the new file, never half.
"""
from __future__ import annotations

import contextlib
import hashlib
import os
import signal
import stat
import tempfile
import threading
from dataclasses import dataclass


class StaleFileError(Exception):
    """The file changed on disk after castlint read it."""


@dataclass(frozen=True)
class Snapshot:
    path: str
    digest: str
    mtime_ns: int
    size: int

    @classmethod
    def of(cls, path: str, data: bytes) -> "Snapshot":
        st = os.stat(path)
        return cls(path, hashlib.sha256(data).hexdigest(), st.st_mtime_ns, st.st_size)


def read_snapshot(path: str) -> tuple:
    with open(path, "rb") as fh:
        data = fh.read()
    return data, Snapshot.of(path, data)


@contextlib.contextmanager
def signals_held():
    """Hold SIGINT/SIGTERM for the duration of one write; they are delivered right after."""
    if not hasattr(signal, "pthread_sigmask") or threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT, signal.SIGTERM})
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, previous)


def atomic_write(path: str, data: bytes, snapshot: Snapshot) -> None:
    """Replace path with data atomically, if it still holds what snapshot saw.

    An interrupt cannot land between creating the temp file and the rename: the
    signals are held for the write and act once it is done."""
    with signals_held():
        _atomic_write(path, data, snapshot)


def _atomic_write(path: str, data: bytes, snapshot: Snapshot) -> None:
    real = os.path.realpath(path)  # write through symlinks, keep the link
    st = os.stat(real)
    with open(real, "rb") as fh:
        current = fh.read()
    if hashlib.sha256(current).hexdigest() != snapshot.digest:
        raise StaleFileError(f"{path} changed on disk since it was read; not overwritten")
    folder = os.path.dirname(real) or "."
    fd, tmp = tempfile.mkstemp(prefix=".castlint-", suffix=".tmp", dir=folder)
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        os.chmod(tmp, stat.S_IMODE(st.st_mode))
        try:
            os.chown(tmp, st.st_uid, st.st_gid)
        except (PermissionError, AttributeError):
            pass
        os.replace(tmp, real)
    except BaseException:
        try:
            os.unlink(tmp)
        except FileNotFoundError:
            pass
        raise
    try:
        dir_fd = os.open(folder, os.O_RDONLY)
        try:
            os.fsync(dir_fd)
        finally:
            os.close(dir_fd)
    except OSError:
        pass
