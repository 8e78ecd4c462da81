"""Safe writes: atomic (temp file + rename), keeping mode and bytes we did not mean to change.

The codemods work on libcst modules, which round-trip the file's encoding, BOM
and line endings byte for byte; this module makes sure the write itself cannot
lose data:

- an interrupted write leaves either the old or the new file, never half;
- a file that changed on disk since it was read is not overwritten: its content,
  inode, size and mtime are compared with what was read once the new bytes are on
  disk, right before the rename;
- the rename itself is an exchange where the system has one (Linux
  renameat2(RENAME_EXCHANGE)): the file it displaces is checked again *after*
  the rename, and if another writer replaced or rewrote it in the meantime, the
  exchange is undone, so the other writer's version stays and castlint reports
  the file (StaleFileError). Without an exchange, a hard link to the old file
  gives the same check after the rename for writers that write in place; a writer
  that renames its own file over ours in the microseconds between the last check
  and the rename can still lose that write (docs/fix.md, "Concurrent writers").

Temp files are named `.castlint-<pid>-<8 chars>.tmp`, next to the file;
remove_stale_temps() deletes those whose writer is dead (a SIGKILL mid-write),
and nothing else.
"""

from __future__ import annotations

import contextlib
import errno
import hashlib
import os
import random
import re
import signal
import stat
import sys
import threading
import time
from dataclasses import dataclass
from typing import Iterable, List, Optional, Sequence

TEMP_RE = re.compile(r"\.castlint-(\d{1,10})-([a-z0-9_]{8})\.tmp")
LEGACY_TEMP_RE = re.compile(r"\.castlint-([a-z0-9_]{8})\.tmp")  # castlint before the pid was in the name
STALE_DEAD_S = 10.0  # a temp file of a dead writer, at least this old, is stale
STALE_ANY_S = 24 * 3600.0  # any temp file of ours this old is stale (pid reuse, another machine)


class StaleFileError(Exception):
    """The file changed on disk after castlint read it (before or while castlint wrote it)."""


class NotWritten(Exception):
    """castlint will not rewrite this file: the rewrite could not keep what the file is
    beyond its bytes (a second hard link, its owner or group)."""


@dataclass(frozen=True)
class Snapshot:
    path: str
    digest: str
    mtime_ns: int
    size: int
    ino: int = 0
    dev: int = 0

    @classmethod
    def of(cls, path: str, data: bytes, st: Optional[os.stat_result] = None) -> "Snapshot":
        st = st or os.stat(path)
        return cls(path, hashlib.sha256(data).hexdigest(), st.st_mtime_ns, st.st_size, st.st_ino, st.st_dev)

    def matches(self, st: os.stat_result, data: Optional[bytes] = None) -> bool:
        if (st.st_ino, st.st_dev) != (self.ino, self.dev) and self.ino:
            return False
        if st.st_size != self.size or st.st_mtime_ns != self.mtime_ns:
            return False
        return data is None or hashlib.sha256(data).hexdigest() == self.digest


def read_snapshot(path: str) -> tuple:
    """The file's bytes and what they were read from (one open file: inode, size, mtime).

    A file rewritten while it is read is read again (a torn read is never fixed)."""
    for _ in range(5):
        with open(path, "rb") as fh:
            before = os.fstat(fh.fileno())
            data = fh.read()
            after = os.fstat(fh.fileno())
        if (before.st_mtime_ns, before.st_size) == (after.st_mtime_ns, after.st_size) == (after.st_mtime_ns, len(data)):
            return data, Snapshot.of(path, data, after)
    return data, Snapshot.of(path, data, after)


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


def write_or_error(path: str, data: bytes, snapshot: Snapshot):
    """atomic_write, with a failure as the FileError that reports it (None when written)."""
    from castlint.models import FileError

    try:
        atomic_write(path, data, snapshot)
    except (StaleFileError, NotWritten) as exc:
        return FileError(path, 0, str(exc), "fix")
    except OSError as exc:
        return FileError(path, 0, f"cannot write: {exc.strerror or exc}", "fix")
    return None


def atomic_write(path: str, data: bytes, snapshot: Snapshot) -> None:
    """Replace path with data atomically, if it still holds what snapshot saw.

    An interrupt cannot land between creating the temp file and the rename: the
    signals are held for the write and act once it is done."""
    with signals_held():
        _atomic_write(path, data, snapshot)


def _stale(path: str) -> StaleFileError:
    return StaleFileError(f"{path} changed on disk since it was read; not overwritten")


def _lost_race(path: str) -> StaleFileError:
    return StaleFileError(
        f"{path} was rewritten by another program while castlint wrote it; kept the other program's version, not fixed"
    )


def _read_at(path: str) -> tuple:
    """(fstat, bytes) of what is at path now, without following a symlink; (None, None) if nothing."""
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0))
    except OSError:
        return None, None
    with os.fdopen(fd, "rb") as fh:
        st = os.fstat(fh.fileno())
        return st, fh.read()


def temp_name(folder: str) -> str:
    return os.path.join(folder, f".castlint-{os.getpid()}-{''.join(random.choices(_CHARS, k=8))}.tmp")


_CHARS = "abcdefghijklmnopqrstuvwxyz0123456789_"


def _create_temp(folder: str) -> tuple:
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0)
    for _ in range(100):
        name = temp_name(folder)
        try:
            return os.open(name, flags, 0o600), name
        except FileExistsError:
            continue
    raise FileExistsError(errno.EEXIST, "no free temp file name", folder)


def create_file(path: str, data: bytes, like: str) -> None:
    """Add a new file atomically, with the mode of the file `like` (without its set-id bits):
    written to a temp file, then linked at path, which must not exist yet."""
    folder = os.path.dirname(path) or "."
    with signals_held():
        fd, tmp = _create_temp(folder)
        try:
            with os.fdopen(fd, "wb") as fh:
                fh.write(data)
                fh.flush()
                os.fchmod(fh.fileno(), stat.S_IMODE(os.stat(like).st_mode) & 0o777)
                os.fsync(fh.fileno())
            os.link(tmp, path)  # FileExistsError when another writer created it meanwhile
        finally:
            _unlink(tmp)
        _fsync_dir(folder)


def _atomic_write(path: str, data: bytes, snapshot: Snapshot) -> None:
    real = os.path.realpath(path)  # write through symlinks, keep the link
    st = os.stat(real)
    if not snapshot.matches(st):
        raise _stale(path)
    if st.st_nlink > 1:
        raise NotWritten(
            f"{path} has {st.st_nlink} hard links: a rewrite (a new file renamed over it) would "
            "leave the other names with the old content; not written (fix a copy, or break the "
            "link, then run castlint again)"
        )
    folder = os.path.dirname(real) or "."
    fd, tmp = _create_temp(folder)
    ours = None
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            fh.flush()
            _keep_attributes(fh.fileno(), path, real, st)
            os.fsync(fh.fileno())
            ours = os.fstat(fh.fileno())
        # The last look before the rename: the same file (inode), size, mtime and bytes.
        now, current = _read_at(real)
        if now is None or not snapshot.matches(now, current):
            raise _stale(path)
        if _exchange(tmp, real):
            _settle_exchange(path, real, tmp, snapshot, ours)
        else:
            _replace_checked(path, real, tmp, snapshot, ours)
    except BaseException:
        _unlink(tmp)
        raise
    _fsync_dir(folder)


def _keep_attributes(fd: int, path: str, real: str, st: os.stat_result) -> None:
    """Give the new file (fd) what the old one had beyond its bytes: owner and group (when
    castlint may: as root, or the owner setting one of its own groups), extended attributes
    (ACLs, user.* tags; those the system will not copy are left), then the mode, set-id bits
    included. A file whose owner or group the rewrite could not keep is not written."""
    try:
        os.fchown(fd, st.st_uid, st.st_gid)
    except (AttributeError, OSError):
        pass
    now = os.fstat(fd)
    if (now.st_uid, now.st_gid) != (st.st_uid, st.st_gid):
        raise NotWritten(
            f"{path} belongs to uid {st.st_uid}, gid {st.st_gid}; castlint runs as uid {os.geteuid()} "
            "and a rewrite would change the file's owner or group; not written (run castlint as its "
            "owner, or as root)"
        )
    for name in _xattr_names(real):
        try:
            os.setxattr(fd, name, os.getxattr(real, name, follow_symlinks=False))
        except OSError:  # security.* labels and the like: the system decides
            pass
    os.fchmod(fd, stat.S_IMODE(st.st_mode))  # last: chown may clear set-id bits, an ACL sets the group bits


def _xattr_names(real: str) -> list:
    if not hasattr(os, "listxattr"):
        return []
    try:
        return os.listxattr(real, follow_symlinks=False)
    except OSError:  # not supported on this file system
        return []


def _settle_exchange(path: str, real: str, tmp: str, snapshot: Snapshot, ours: os.stat_result) -> None:
    """After the exchange, tmp holds the file the rename displaced. If it is not what we read,
    another writer got in between the last check and the rename: undo, keep theirs."""
    displaced, content = _read_at(tmp)
    if displaced is not None and snapshot.matches(displaced, content):
        _unlink(tmp)
        return
    if not _exchange(tmp, real):  # undo; cannot fail where the first exchange worked, but be safe
        os.replace(tmp, _saved_name(real))
        raise StaleFileError(
            f"{path} was rewritten by another program while castlint wrote it; its version "
            f"is saved as {_saved_name(real)}"
        )
    back, _ = _read_at(tmp)
    if back is not None and (back.st_ino, back.st_dev) != (ours.st_ino, ours.st_dev):
        # A third version landed on path between the two exchanges: it is the newest, keep it there.
        _exchange(tmp, real)
    raise _lost_race(path)


def _replace_checked(path: str, real: str, tmp: str, snapshot: Snapshot, ours: os.stat_result) -> None:
    """Without an exchange: hold the old file by a hard link, replace, then check the old file
    was not written after the last check (in-place writers); if it was, put it back."""
    link = None
    try:
        link = temp_name(os.path.dirname(real) or ".")
        os.link(real, link, follow_symlinks=False)
    except (OSError, NotImplementedError, TypeError):
        link = None
    try:
        if link is not None:
            held, content = _read_at(link)
            if held is None or not snapshot.matches(held, content):
                raise _stale(path)
        os.replace(tmp, real)
        if link is not None:
            after, content = _read_at(link)
            if after is not None and not snapshot.matches(after, content):
                now = os.lstat(real)
                if (now.st_ino, now.st_dev) == (ours.st_ino, ours.st_dev):
                    os.replace(link, real)
                    link = None
                raise _lost_race(path)
    finally:
        if link is not None:
            _unlink(link)


def _saved_name(real: str) -> str:
    return f"{real}.castlint-saved-{os.getpid()}"


def _unlink(name: str) -> None:
    try:
        os.unlink(name)
    except FileNotFoundError:
        pass
    except OSError:
        pass


def _fsync_dir(folder: str) -> None:
    try:
        dir_fd = os.open(folder, os.O_RDONLY)
        try:
            os.fsync(dir_fd)
        finally:
            os.close(dir_fd)
    except OSError:
        pass


# -- renameat2(RENAME_EXCHANGE) ------------------------------------------------------

_RENAME_EXCHANGE = 2
_AT_FDCWD = -100
_SYSCALL = {"x86_64": 316, "aarch64": 276, "riscv64": 276, "ppc64le": 357, "s390x": 347, "i686": 353}
_exchange_fn = None
_exchange_off: set = set()  # st_dev values where the file system refused the exchange
USE_EXCHANGE = sys.platform.startswith("linux")


def _renameat2():
    global _exchange_fn
    if _exchange_fn is None:
        _exchange_fn = False
        try:
            import ctypes
            import platform

            libc = ctypes.CDLL(None, use_errno=True)
            fn = getattr(libc, "renameat2", None)
            if fn is not None:
                fn.argtypes = [ctypes.c_int, ctypes.c_char_p, ctypes.c_int, ctypes.c_char_p, ctypes.c_uint]
                _exchange_fn = lambda a, b: fn(_AT_FDCWD, a, _AT_FDCWD, b, _RENAME_EXCHANGE)  # noqa: E731
            elif platform.machine() in _SYSCALL:
                number = _SYSCALL[platform.machine()]
                syscall = libc.syscall

                def _exchange_fn(a, b):
                    return syscall(
                        ctypes.c_long(number),
                        ctypes.c_int(_AT_FDCWD),
                        a,
                        ctypes.c_int(_AT_FDCWD),
                        b,
                        ctypes.c_uint(_RENAME_EXCHANGE),
                    )
        except (OSError, AttributeError, ImportError):
            _exchange_fn = False
    return _exchange_fn


def _exchange(a: str, b: str) -> bool:
    """Atomically swap the files at a and b. False where the system or file system cannot."""
    if not USE_EXCHANGE:
        return False
    fn = _renameat2()
    if not fn:
        return False
    try:
        dev = os.lstat(b).st_dev
    except OSError:
        return False
    if dev in _exchange_off:
        return False
    import ctypes

    if fn(os.fsencode(a), os.fsencode(b)) == 0:
        return True
    err = ctypes.get_errno()
    if err in (errno.EINVAL, errno.ENOSYS, errno.EOPNOTSUPP, errno.ENOTSUP, errno.EPERM):
        _exchange_off.add(dev)  # not on this file system: the fallback, from now on
        return False
    raise OSError(err, os.strerror(err), b)


# -- line endings ----------------------------------------------------------------------


def _ending(line: bytes) -> bytes:
    if line.endswith(b"\r\n"):
        return b"\r\n"
    if line.endswith((b"\n", b"\r")):
        return line[-1:]
    return b""


def dominant_ending(data: bytes) -> Optional[bytes]:
    """The line ending most lines of data end in (CRLF, LF or CR; LF on a tie); None when no line ends."""
    crlf = data.count(b"\r\n")
    counts = {b"\n": data.count(b"\n") - crlf, b"\r\n": crlf, b"\r": data.count(b"\r") - crlf}
    best = max(counts, key=lambda e: counts[e])
    return best if counts[best] else None


def keep_line_endings(old: bytes, new: bytes) -> bytes:
    """new (a fix of old), with the line endings of the file: a line the fix changed in place
    keeps its own ending, a line it added gets the file's dominant one, and the file keeps
    its final line break (libcst drops the last CR of a CR-only file; code a codemod builds
    from a template ends its lines in LF, whatever the file uses). Lines the fix did not
    touch are not looked at: a file with mixed endings keeps them."""
    ending = dominant_ending(old)
    if ending is None or new == old:
        return new
    if _ending(old) and new and not _ending(new):
        new += _ending(old)
    if ending == b"\n" and b"\r" not in new:
        return new  # the common case: LF everywhere
    old_lines, new_lines = old.splitlines(keepends=True), new.splitlines(keepends=True)
    if all(_ending(line) in (ending, b"") for line in new_lines) and b"\r" not in old.replace(ending, b""):
        return new
    import difflib

    head = 0
    while head < min(len(old_lines), len(new_lines)) and old_lines[head] == new_lines[head]:
        head += 1
    tail = 0
    while tail < min(len(old_lines), len(new_lines)) - head and old_lines[-1 - tail] == new_lines[-1 - tail]:
        tail += 1
    a, b = old_lines[head : len(old_lines) - tail], new_lines[head : len(new_lines) - tail]
    for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(None, a, b, autojunk=False).get_opcodes():
        if tag == "equal" or tag == "delete":
            continue
        same_shape = tag == "replace" and i2 - i1 == j2 - j1
        for k in range(j2 - j1):
            line = b[j1 + k]
            have = _ending(line)
            want = (_ending(a[i1 + k]) or ending) if same_shape else ending
            if have and have != want:
                b[j1 + k] = line[: -len(have)] + want
    return b"".join(new_lines[:head] + b + new_lines[len(new_lines) - tail :])


# -- symlinks that leave the checked paths ----------------------------------------------


def roots_of(paths: Iterable[str]) -> List[str]:
    """The real locations of the paths a run was given (a named file is its own root)."""
    return sorted({os.path.realpath(p) for p in paths})


def outside(path: str, roots: Sequence[str]) -> Optional[str]:
    """The real file path points to, if that lies outside every root; None if inside."""
    real = os.path.realpath(path)
    for root in roots:
        if real == root or real.startswith(root.rstrip(os.sep) + os.sep):
            return None
    return real


# -- temp files a killed castlint left behind -------------------------------------------


def _pid_alive(pid: int) -> bool:
    if pid <= 0:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except (PermissionError, OSError):
        return True  # exists, not ours to signal
    return True


def remove_stale_temps(folders: Iterable[str], now: Optional[float] = None) -> List[str]:
    """Delete castlint's own temp files that no live castlint is writing, in these folders.

    Only regular files (never a link) owned by this user, named exactly as castlint
    names them, and either written by a process that no longer exists (and at least
    STALE_DEAD_S old) or older than STALE_ANY_S. Returns the paths removed."""
    now = time.time() if now is None else now
    removed = []
    uid = os.geteuid() if hasattr(os, "geteuid") else None
    for folder in sorted(set(folders)):
        try:
            entries = list(os.scandir(folder))
        except OSError:
            continue
        for entry in entries:
            name = entry.name
            if not name.startswith(".castlint-") or not name.endswith(".tmp"):
                continue
            match = TEMP_RE.fullmatch(name)
            legacy = None if match else LEGACY_TEMP_RE.fullmatch(name)
            if match is None and legacy is None:
                continue
            try:
                st = entry.stat(follow_symlinks=False)
            except OSError:
                continue
            if not stat.S_ISREG(st.st_mode) or (uid is not None and st.st_uid != uid):
                continue
            age = now - st.st_mtime
            if match is not None:
                pid = int(match.group(1))
                stale = age > STALE_ANY_S or (age > STALE_DEAD_S and pid != os.getpid() and not _pid_alive(pid))
            else:
                stale = age > 3600.0  # no pid to ask: an hour is far longer than any write
            if stale:
                try:
                    os.unlink(entry.path)
                    removed.append(entry.path)
                except OSError:
                    pass
    return removed
