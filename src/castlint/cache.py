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
only turns the cache off for that run. Turn it off with `--no-cache` or
`cache = false`; delete the directory to clear it.
"""
from __future__ import annotations

import dataclasses
import hashlib
import json
import os
import tempfile
from enum import Enum
from pathlib import Path
from typing import Dict, Optional

from castlint.models import Cost, FileError, FileResult, Finding, Fix, FixSafety, Position, Severity

CACHE_DIR = ".castlint_cache"
FORMAT = 1
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
        "model": sorted((k, repr(v)) for k, v in config.model.items()),
        "max_file_size": config.max_file_size,
        "root": str(Path(config.root).resolve()),
        "options": list(options),
    }
    h.update(json.dumps(parts, sort_keys=True).encode())
    return h.hexdigest()


class Cache:
    def __init__(self, folder: Path, key: str):
        self.folder = folder
        self.file = folder / f"v{FORMAT}-{key}.json"
        self.entries: Dict[str, list] = {}
        self.dirty = False
        try:
            with open(self.file, "r", encoding="utf-8") as fh:
                data = json.loads(fh.read())
            if isinstance(data, dict) and data.get("format") == FORMAT and isinstance(data.get("entries"), dict):
                self.entries = data["entries"]
        except (OSError, ValueError):
            self.entries = {}

    def lookup(self, path: str, sig: Optional[tuple]) -> Optional[FileResult]:
        entry = self.entries.get(path)
        if entry is None or sig is None:
            return None
        try:
            old_sig, hexdigest, payload = entry
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
            return _load_result(path, payload)
        except (TypeError, ValueError, KeyError, IndexError):
            self.entries.pop(path, None)
            return None

    def store(self, path: str, sig: Optional[tuple], content_digest: bytes, result: FileResult) -> None:
        if sig is None:
            return
        self.entries[path] = [list(sig), content_digest.hex(), _dump_result(result)]
        self.dirty = True

    def save(self) -> None:
        if not self.dirty:
            return
        try:
            self.folder.mkdir(parents=True, exist_ok=True)
            _mark(self.folder)
            fd, tmp = tempfile.mkstemp(prefix=".tmp-", suffix=".json", dir=self.folder)
            try:
                text = json.dumps({"format": FORMAT, "entries": self.entries}, separators=(",", ":"))
                with os.fdopen(fd, "w", encoding="utf-8") as fh:
                    fh.write(text)  # one write: json.dump streams in small pieces, 3x slower
                os.replace(tmp, self.file)
            except BaseException:
                try:
                    os.unlink(tmp)
                except OSError:
                    pass
                raise
            self._trim()
        except OSError:
            pass  # a read-only tree: no cache, same results
        self.dirty = False

    def _trim(self) -> None:
        files = sorted(self.folder.glob(f"v{FORMAT}-*.json"), key=lambda p: _mtime(p), reverse=True)
        for old in files[KEEP_FILES:]:
            try:
                old.unlink()
            except OSError:
                pass


def _mtime(path: Path) -> int:
    try:
        return path.stat().st_mtime_ns
    except OSError:
        return 0


def _mark(folder: Path) -> None:
    """Keep the cache out of git and backups, as ruff does."""
    for name, text in ((".gitignore", "# created by castlint\n*\n"),
                       ("CACHEDIR.TAG", "Signature: 8a477f597d28d172789f06886806bc55\n# castlint cache\n")):
        target = folder / name
        if not target.exists():
            try:
                target.write_text(text, encoding="utf-8")
            except OSError:
                pass


def open_cache(config, tables, options=()) -> Optional[Cache]:
    try:
        folder = Path(config.root) / CACHE_DIR
        return Cache(folder, config_key(config, tables, options))
    except OSError:
        return None


# -- results <-> JSON -----------------------------------------------------------

def _dump_result(result: FileResult) -> list:
    return [
        1 if result.skipped else 0,
        [_dump_finding(f) for f in result.findings],
        [[e.line, e.message, e.kind] for e in result.errors],
    ]


def _load_result(path: str, payload: list) -> FileResult:
    skipped, findings, errors = payload
    return FileResult(
        path=path,
        findings=[_load_finding(path, f) for f in findings],
        errors=[FileError(path, int(line), str(message), str(kind)) for line, message, kind in errors],
        skipped=bool(skipped),
    )


_NESTED = {"start": Position, "end": Position, "cost": Cost, "fix": Fix}


def _plain(value):
    if isinstance(value, Enum):
        return value.value
    if dataclasses.is_dataclass(value):
        return {f.name: _plain(getattr(value, f.name)) for f in dataclasses.fields(value)}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    return value


def _dump_finding(f: Finding) -> dict:
    data = _plain(f)
    data.pop("path", None)  # the entry's key
    return data


def _load_finding(path: str, data: dict) -> Finding:
    kwargs = dict(data, path=path)
    kwargs["severity"] = Severity(kwargs["severity"])
    for name, cls in _NESTED.items():
        value = kwargs.get(name)
        if isinstance(value, dict):
            if cls is Fix:
                value = dict(value, safety=FixSafety(value["safety"]))
            kwargs[name] = cls(**value)
    return Finding(**kwargs)
