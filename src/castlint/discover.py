"""Paths -> the Python files to check (honouring exclude), and the text prefilter."""
from __future__ import annotations

import os
from pathlib import Path
from typing import Iterable, Iterator, List, Tuple

from castlint.config import Config
from castlint.models import FileError


def discover(paths: Iterable[str], config: Config) -> Tuple[List[str], List[FileError]]:
    """Every .py file under paths, sorted, plus errors for paths that cannot be walked."""
    files: List[str] = []
    errors: List[FileError] = []
    seen = set()
    for raw in paths:
        path = Path(raw)
        if not path.exists() and not path.is_symlink():
            errors.append(FileError(str(raw), 0, "no such file or directory", "read"))
            continue
        if path.is_dir():
            for found in _walk(path, config, errors):
                key = os.path.realpath(found)
                if key not in seen:
                    seen.add(key)
                    files.append(found)
        else:
            # An explicitly named file is checked even if exclude would skip it in a walk,
            # except under pre-commit's style of passing every file: honour exclude then too.
            if config.excluded(path):
                continue
            key = os.path.realpath(path)
            if key not in seen:
                seen.add(key)
                files.append(str(path))
    return sorted(files), errors


def _walk(root: Path, config: Config, errors: List[FileError]) -> Iterator[str]:
    def onerror(exc: OSError):
        errors.append(FileError(exc.filename or str(root), 0, f"cannot read directory: {exc.strerror}", "read"))

    visited = set()
    for dirpath, dirnames, filenames in os.walk(root, onerror=onerror, followlinks=True):
        try:
            real = os.path.realpath(dirpath)
        except OSError:
            continue
        if real in visited:  # symlink loop
            errors.append(FileError(dirpath, 0, "symlink loop: directory already visited", "read"))
            dirnames[:] = []
            continue
        visited.add(real)
        dirnames[:] = sorted(d for d in dirnames if not config.excluded(Path(dirpath) / d))
        for name in sorted(filenames):
            if name.endswith(".py") or name.endswith(".pyi"):
                full = Path(dirpath) / name
                if not config.excluded(full):
                    yield str(full)
        for name in list(dirnames):  # a directory named x.py is not a file
            if name.endswith(".py"):
                pass


def has_trigger(text: bytes, groups) -> bool:
    """Cheap prefilter: can any rule fire on this text at all? (see Tables.trigger_groups)"""
    return any(all(any(word in text for word in words) for words in group) for group in groups)
