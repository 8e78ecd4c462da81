"""`.castlint_cache/`: per-file results, reused while nothing that decides them changed.

A result is reused when the file's content hash matches, and the cache file it
lives in is chosen by everything else that decides a result: the castlint
version (and, for an editable install, its source files), the rule tables
(Tables.digest), the configuration that affects findings, and the engine
options. A changed table or config therefore starts a new cache file.

Reading every file to hash it would cost most of a warm run, so each entry also
keeps the file's stat signature (size, mtime, ctime, inode): when that is
unchanged the content is taken as unchanged, as ruff and git do. When it
changed, the file is read and hashed, and a matching hash still reuses the
result (a `touch` or a checkout that rewrites identical bytes costs a read, not
an analysis).

The cache is JSON (never pickle: a cache directory can come from anywhere),
written atomically (temp file + rename), and any problem reading or writing it
only turns the cache off for that run. Every entry is checked, field by field,
before it is used; a malformed one is dropped (and recomputed), never trusted.
Turn it off with `--no-cache` or `cache = false`; delete the directory to clear it.

castlint never follows a symlinked `.castlint_cache` (the cache is then off, with
one warning), works on the directory through a file descriptor opened with
O_NOFOLLOW, and only ever deletes files it wrote itself: in a directory that
carries its marker (the CACHEDIR.TAG it writes, naming castlint), and only names
of its own strict pattern (`v1-<20 hex digits>.json`, and its own temp files).
"""

from __future__ import annotations

import dataclasses
import errno
import hashlib
import json
import os
import re
import stat
import sys
import time
from enum import Enum
from pathlib import Path
from typing import Dict, Optional

from castlint.models import Cost, FileError, FileResult, Finding, Fix, FixSafety, Position, Severity

CACHE_DIR = ".castlint_cache"
FORMAT = 1  # (an entry without `accessor`, from before issue 22, fails _load_finding and is recomputed)
KEEP_FILES = 8  # cache files (one per version/tables/config) kept in the directory


def digest(data: bytes) -> bytes:
    return hashlib.blake2b(data, digest_size=16).digest()


def signature(path: str) -> Optional[tuple]:
    try:
        st = os.stat(path)
    except OSError:
        return None
    return (st.st_size, st.st_mtime_ns, st.st_ctime_ns, st.st_ino)


def cacheable(result: FileResult) -> bool:
    """Read problems may go away by themselves (a file written as we read it); analyzer
    bugs should be retried. Everything else is a function of the content."""
    # a result that read other files' definitions (follow-imports, learnt accessors) is kept with
    # those files' signatures and content digests (Cache.store), and reused only while they match
    return all(e.kind == "parse" for e in result.errors)


def _code_fingerprint() -> str:
    """castlint's own files: an editable install changes without a version bump."""
    from castlint import __version__

    root = Path(__file__).resolve().parent
    h = hashlib.blake2b(digest_size=8)
    h.update(__version__.encode())
    for folder, dirs, files in os.walk(root):
        dirs[:] = sorted(d for d in dirs if d != "__pycache__")
        for name in sorted(files):
            if name.endswith((".py", ".toml")):
                try:
                    st = os.stat(os.path.join(folder, name))
                except OSError:
                    continue
                h.update(f"{folder}/{name}:{st.st_size}:{st.st_mtime_ns}\n".encode())
    return h.hexdigest()


def config_key(config, tables, options=()) -> str:
    """Everything besides a file's content that decides its result."""
    h = hashlib.blake2b(digest_size=10)
    parts = {
        "format": FORMAT,
        "code": _code_fingerprint(),
        "tables": tables.digest,
        "select": list(config.select),
        "ignore": list(config.ignore),
        "per_file_ignores": sorted((k, list(v)) for k, v in config.per_file_ignores.items()),
        "ignore_noqa": getattr(config, "ignore_noqa", False),
        "model": sorted((k, repr(v)) for k, v in config.model.items()),
        "max_file_size": config.max_file_size,
        "follow_imports": config.follow_imports,
        "root": str(Path(config.root).resolve()),
        "options": list(options),
    }
    h.update(json.dumps(parts, sort_keys=True).encode())
    return h.hexdigest()


_NAME = re.compile(rf"v{FORMAT}-[0-9a-f]{{20}}\.json")
_TEMP = re.compile(r"\.tmp-(?:\d+-)?[a-z0-9_]{8}\.json")  # ours: mkstemp's 8 characters, maybe a pid
_MARKER = "CACHEDIR.TAG"
_MARKER_TEXT = "Signature: 8a477f597d28d172789f06886806bc55\n# castlint cache\n"
_STALE_TEMP_S = 3600.0
_DIR_FLAGS = os.O_RDONLY | getattr(os, "O_DIRECTORY", 0) | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0)
_FD_OPS = (
    os.open in os.supports_dir_fd
    and os.replace in os.supports_dir_fd
    and os.unlink in os.supports_dir_fd
    and os.stat in os.supports_dir_fd
    and hasattr(os, "O_NOFOLLOW")
    and hasattr(os, "O_DIRECTORY")
)
_warned = set()


def _warn_once(key: str, message: str) -> None:
    if key in _warned:
        return
    _warned.add(key)
    try:
        sys.stderr.write(f"castlint: warning: {message}\n")
        sys.stderr.flush()
    except (OSError, ValueError):
        pass


class _Folder:
    """The cache directory, held by a descriptor opened without following a symlink.

    Every later open, rename, stat and unlink is relative to that descriptor, so a
    directory swapped for a link after the check is never written through."""

    def __init__(self, path: Path, fd: Optional[int]):
        self.path, self.fd = path, fd

    @classmethod
    def open(cls, path: Path, create: bool) -> Optional["_Folder"]:
        """None: no directory (and create is False). Raises _Linked for a symlink, OSError."""
        if os.path.islink(path):
            raise _Linked(path)
        if not _FD_OPS:
            if not path.is_dir():
                if not create:
                    return None
                path.mkdir(parents=True, exist_ok=True)
            return cls(path, None)
        try:
            fd = os.open(path, _DIR_FLAGS)
        except FileNotFoundError:
            if not create:
                return None
            try:
                os.mkdir(path)
            except FileExistsError:
                pass
            fd = os.open(path, _DIR_FLAGS)
        except OSError as exc:
            if exc.errno in (errno.ELOOP, errno.ENOTDIR) and os.path.islink(path):
                raise _Linked(path) from None
            raise
        return cls(path, fd)

    def close(self) -> None:
        if self.fd is not None:
            os.close(self.fd)
            self.fd = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def _where(self, name: str) -> dict:
        return {"dir_fd": self.fd} if self.fd is not None else {}

    def _name(self, name: str) -> str:
        return name if self.fd is not None else str(self.path / name)

    def read(self, name: str) -> bytes:
        fd = os.open(
            self._name(name),
            os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0),
            **self._where(name),
        )
        with os.fdopen(fd, "rb") as fh:
            return fh.read()

    def create(self, name: str) -> int:
        flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0)
        return os.open(self._name(name), flags, 0o666, **self._where(name))

    def replace(self, src: str, dst: str) -> None:
        if self.fd is not None:
            os.replace(src, dst, src_dir_fd=self.fd, dst_dir_fd=self.fd)
        else:
            os.replace(self._name(src), self._name(dst))

    def unlink(self, name: str) -> None:
        os.unlink(self._name(name), **self._where(name))

    def lstat(self, name: str) -> os.stat_result:
        return os.stat(self._name(name), follow_symlinks=False, **self._where(name))

    def names(self) -> list:
        return os.listdir(self.fd if self.fd is not None else self.path)

    def owned(self) -> bool:
        """Did castlint make this directory? Its CACHEDIR.TAG (a regular file) names castlint."""
        try:
            if not stat.S_ISREG(self.lstat(_MARKER).st_mode):
                return False
            return b"castlint" in self.read(_MARKER)[:512]
        except OSError:
            return False


class _Linked(OSError):
    """The cache directory is a symbolic link."""


class Cache:
    def __init__(self, folder: Path, key: str):
        self.folder = folder
        self.name = f"v{FORMAT}-{key}.json"
        self.file = folder / self.name
        self.entries: Dict[str, list] = {}
        self.dirty = False
        self.disabled = False
        try:
            with _Folder.open(folder, create=False) or _Nothing() as where:
                if isinstance(where, _Folder):
                    data = json.loads(where.read(self.name))
                    if (
                        isinstance(data, dict)
                        and data.get("format") == FORMAT
                        and isinstance(data.get("entries"), dict)
                    ):
                        self.entries = data["entries"]
        except _Linked:
            self.disabled = True
            _linked_warning(folder)
        except (OSError, ValueError, RecursionError):
            self.entries = {}

    def lookup(self, path: str, sig: Optional[tuple]) -> Optional[FileResult]:
        entry = self.entries.get(path)
        if entry is None or sig is None:
            return None
        try:
            result = _valid_entry(path, entry)
        except (TypeError, ValueError, KeyError, IndexError, AttributeError, RecursionError):
            result = None
        if result is None:  # malformed (a hand edit, a bug, another version): drop it, recompute
            self.entries.pop(path, None)
            self.dirty = True
            return None
        old_sig, hexdigest, _ = entry
        if result.links and not self._links_unchanged(entry[2][3]):
            return None  # a file whose definitions or accessors the result used has changed
        if tuple(old_sig) != tuple(sig):
            # Changed on disk? Hash it: identical bytes keep the result.
            try:
                with open(path, "rb") as fh:
                    data = fh.read()
            except OSError:
                return None
            if digest(data).hex() != hexdigest:
                return None
            entry[0] = list(sig)
            self.dirty = True
        return result

    def store(self, path: str, sig: Optional[tuple], content_digest: bytes, result: FileResult) -> None:
        if sig is None or self.disabled:
            return
        payload = _dump_result(result)
        if result.links:
            links = [self._link_state(p) for p in sorted(set(result.links))]
            if any(link is None for link in links):
                return  # a linked file is gone: nothing to key the result on
            payload.append(links)
        self.entries[path] = [list(sig), content_digest.hex(), payload]
        self.dirty = True

    def _link_state(self, path: str) -> Optional[list]:
        """[path, stat signature, content digest] of a file a result used, once per run."""
        memo = self.__dict__.setdefault("_links", {})
        if path not in memo:
            sig = signature(path)
            state = None
            if sig is not None:
                try:
                    with open(path, "rb") as fh:
                        state = [path, list(sig), digest(fh.read()).hex()]
                except OSError:
                    state = None
            memo[path] = state
        return memo[path]

    def _links_unchanged(self, links: list) -> bool:
        """Do the linked files still have the content the result was computed from? (Their
        stat signature first; a changed one is read and hashed.)"""
        checked = self.__dict__.setdefault("_checked", {})
        for path, old_sig, old_digest in links:
            key = (path, tuple(old_sig), old_digest)
            if key not in checked:
                sig = signature(path)
                if sig is not None and tuple(sig) == tuple(old_sig):
                    checked[key] = True
                else:
                    state = self._link_state(path)
                    checked[key] = state is not None and state[2] == old_digest
            if not checked[key]:
                return False
        return True

    def save(self) -> None:
        if not self.dirty or self.disabled:
            return
        try:
            created = not os.path.lexists(self.folder)
            with _Folder.open(self.folder, create=True) as where:
                if created or not where.names():
                    _mark(where)
                tmp = None
                for _ in range(100):
                    tmp = f".tmp-{os.getpid()}-{_random8()}.json"
                    try:
                        fd = where.create(tmp)
                        break
                    except FileExistsError:
                        continue
                else:
                    return
                try:
                    text = json.dumps({"format": FORMAT, "entries": self.entries}, separators=(",", ":"))
                    with os.fdopen(fd, "w", encoding="utf-8") as fh:
                        fh.write(text)  # one write: json.dump streams in small pieces, 3x slower
                    where.replace(tmp, self.name)
                except BaseException:
                    try:
                        where.unlink(tmp)
                    except OSError:
                        pass
                    raise
                if where.owned():
                    self._trim(where)
        except _Linked:
            _linked_warning(self.folder)
        except (OSError, ValueError):
            pass  # a read-only tree: no cache, same results
        self.dirty = False

    def _trim(self, where: "_Folder") -> None:
        """Keep the KEEP_FILES newest cache files; remove stale temp files. Only our own names,
        only regular files (never a link), only in a directory castlint marked as its own."""
        now = time.time()
        files = []
        for name in where.names():
            try:
                st = where.lstat(name)
            except OSError:
                continue
            if not stat.S_ISREG(st.st_mode):
                continue
            if _NAME.fullmatch(name):
                files.append((st.st_mtime_ns, name))
            elif _TEMP.fullmatch(name) and now - st.st_mtime > _STALE_TEMP_S:
                _unlink_quietly(where, name)
        files.sort(reverse=True)
        for _, name in files[KEEP_FILES:]:
            if name != self.name:
                _unlink_quietly(where, name)


class _Nothing:
    def __enter__(self):
        return None

    def __exit__(self, *exc):
        return False


def _linked_warning(folder: Path) -> None:
    _warn_once(
        f"linked:{folder}",
        f"{folder} is a symbolic link; castlint does not follow it, "
        "so the cache is off for this run (remove the link to turn it back on)",
    )


def _random8() -> str:
    import random

    return "".join(random.choices("abcdefghijklmnopqrstuvwxyz0123456789_", k=8))


def _unlink_quietly(where: "_Folder", name: str) -> None:
    try:
        where.unlink(name)
    except OSError:
        pass


def _mark(where: "_Folder") -> None:
    """Keep the cache out of git and backups, as ruff does; CACHEDIR.TAG also marks the directory as ours."""
    for name, text in ((".gitignore", "# created by castlint\n*\n"), (_MARKER, _MARKER_TEXT)):
        try:
            fd = where.create(name)
        except OSError:
            continue  # already there (or not writable)
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as fh:
                fh.write(text)
        except OSError:
            pass


def open_cache(config, tables, options=()) -> Optional[Cache]:
    try:
        folder = Path(config.root) / CACHE_DIR
        cache = Cache(folder, config_key(config, tables, options))
    except OSError:
        return None
    return None if cache.disabled else cache


# -- results <-> JSON -----------------------------------------------------------


def _dump_result(result: FileResult) -> list:
    return [
        1 if result.skipped else 0,
        [_dump_finding(f) for f in result.findings],
        [[e.line, e.message, e.kind] for e in result.errors],
    ]


def _valid_entry(path: str, entry) -> Optional[FileResult]:
    """The entry's result if every field has the type and range castlint writes, else None."""
    if not (isinstance(entry, list) and len(entry) == 3):
        return None
    sig, hexdigest, payload = entry
    if not (isinstance(sig, list) and len(sig) == 4 and all(_is_int(v) for v in sig)):
        return None
    if not (isinstance(hexdigest, str) and len(hexdigest) == 32):
        return None
    return _load_result(path, payload)


def _is_int(value, low: int = 0) -> bool:
    return type(value) is int and value >= low  # not bool, not float, not a numeric string


def _is_str(value) -> bool:
    return type(value) is str


def _load_result(path: str, payload) -> Optional[FileResult]:
    if not (isinstance(payload, list) and len(payload) in (3, 4)):
        return None
    skipped, findings, errors = payload[:3]
    links = []
    if len(payload) == 4:  # [[path, signature, content digest], ...] of the files the result used
        for item in payload[3]:
            if not (
                isinstance(item, list)
                and len(item) == 3
                and _is_str(item[0])
                and isinstance(item[1], list)
                and len(item[1]) == 4
                and all(_is_int(v) for v in item[1])
                and _is_str(item[2])
            ):
                return None
            links.append(item[0])
    if (
        type(skipped) is not int
        or skipped not in (0, 1)
        or not isinstance(findings, list)
        or not isinstance(errors, list)
    ):
        return None
    loaded = []
    for data in findings:
        finding = _load_finding(path, data)
        if finding is None:
            return None
        loaded.append(finding)
    file_errors = []
    for item in errors:
        if not (isinstance(item, list) and len(item) == 3):
            return None
        line, message, kind = item
        if not (_is_int(line) and _is_str(message) and _is_str(kind)):
            return None
        file_errors.append(FileError(path, line, message, kind))
    return FileResult(path=path, findings=loaded, errors=file_errors, skipped=bool(skipped), links=links)


def _plain(value):
    if isinstance(value, Enum):
        return value.value
    if dataclasses.is_dataclass(value):
        # a field left out of comparisons (Fix.site: tree nodes) is not part of the result
        return {f.name: _plain(getattr(value, f.name)) for f in dataclasses.fields(value) if f.compare}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    return value


def _dump_finding(f: Finding) -> dict:
    data = _plain(f)
    data.pop("path", None)  # the entry's key
    return data


_FINDING_KEYS = {
    "code",
    "name",
    "severity",
    "start",
    "end",
    "message",
    "cost",
    "fix",
    "unfixable_reason",
    "function",
    "accessor",
}


def _position(value) -> Optional[Position]:
    if not (isinstance(value, dict) and set(value) == {"line", "column"}):
        return None
    if not (_is_int(value["line"], 1) and _is_int(value["column"], 1)):
        return None
    return Position(value["line"], value["column"])


def _load_finding(path: str, data) -> Optional[Finding]:
    if not (isinstance(data, dict) and set(data) == _FINDING_KEYS):
        return None
    if not all(_is_str(data[k]) for k in ("code", "name", "severity", "message")):
        return None
    if not all(data[k] is None or _is_str(data[k]) for k in ("unfixable_reason", "function", "accessor")):
        return None
    if data["severity"] not in {s.value for s in Severity}:
        return None
    start, end = _position(data["start"]), _position(data["end"])
    if start is None or end is None:
        return None
    cost = data["cost"]
    if cost is not None:
        if not (isinstance(cost, dict) and set(cost) == {"bytes_per_layer", "bytes_per_step", "model", "pool_tokens"}):
            return None
        if not (
            all(_is_int(cost[k]) for k in ("bytes_per_layer", "bytes_per_step", "pool_tokens"))
            and _is_str(cost["model"])
        ):
            return None
        cost = Cost(**cost)
    fix = data["fix"]
    if fix is not None:
        if not (isinstance(fix, dict) and set(fix) == {"codemod", "safety", "description"}):
            return None
        if not all(_is_str(fix[k]) for k in fix) or fix["safety"] not in {s.value for s in FixSafety}:
            return None
        fix = Fix(fix["codemod"], FixSafety(fix["safety"]), fix["description"])
    return Finding(
        code=data["code"],
        name=data["name"],
        severity=Severity(data["severity"]),
        path=path,
        start=start,
        end=end,
        message=data["message"],
        cost=cost,
        fix=fix,
        unfixable_reason=data["unfixable_reason"],
        function=data["function"],
        accessor=data["accessor"],
    )
