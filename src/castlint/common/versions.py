"""Release numbers as tuples: '0.6.14' -> (0, 6, 14); '0.7.2.post1' -> (0, 7, 2)."""

from __future__ import annotations

import ast
import re
from pathlib import Path
from typing import Iterable, Optional

_RELEASE = re.compile(r"\d+(?:\.\d+)*")


def parse_version(text: str) -> tuple:
    """The numeric release of a version string; () when it has none."""
    match = _RELEASE.match(str(text).strip())
    return tuple(int(part) for part in match.group(0).split(".")) if match else ()


def literal_version(path: Path) -> Optional[str]:
    try:
        tree = ast.parse(path.read_text(encoding="utf-8", errors="replace"))
    except (OSError, SyntaxError, ValueError):
        return None
    for node in tree.body:
        targets = []
        if isinstance(node, ast.Assign):
            targets = [t for t in node.targets]
            value = node.value
        elif isinstance(node, ast.AnnAssign) and node.value is not None:
            targets, value = [node.target], node.value
        else:
            continue
        # `__version__ = version = '0.5.23'` chains too
        names = set()
        for t in targets:
            names.update(n.id for n in ast.walk(t) if isinstance(n, ast.Name))
        if "__version__" in names and isinstance(value, ast.Constant) and isinstance(value.value, str):
            return value.value
    return None


def package_dir(path: str, package: str) -> Optional[Path]:
    """The nearest folder named package at or above path's folder."""
    here = Path(path).resolve().parent
    for folder in (here, *here.parents):
        if folder.name == package:
            return folder
    return None


def release_of(path: str, package: str, version_files: Iterable[str]) -> Optional[str]:
    """The `__version__` literal of the nearest folder named package at or above path
    (the first of version_files that has one), or None."""
    folder = package_dir(path, package)
    if folder is None:
        return None
    for name in version_files:
        found = literal_version(folder / name)
        if found:
            return found
    return None
