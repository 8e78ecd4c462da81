"""How castlint shows a path: relative to a root, with forward slashes."""

from __future__ import annotations

import os
from pathlib import Path
from typing import List, Optional, Tuple


def display_path(path: str, root: Optional[str] = None) -> str:
    """path relative to root (default: the current directory), '/'-separated.

    A path outside root (or on another drive) is shown absolute."""
    full = os.path.abspath(path)
    try:
        rel = os.path.relpath(full, os.path.abspath(root or os.getcwd()))
    except ValueError:  # another drive on Windows
        return full.replace(os.sep, "/")
    if rel == os.pardir or rel.startswith(os.pardir + os.sep):
        return full.replace(os.sep, "/")
    return rel.replace(os.sep, "/")


def _package_of(folder: Path) -> Tuple[Path, List[str]]:
    """(the folder above the top package, the package names down to folder)."""
    parts: List[str] = []
    while (folder / "__init__.py").is_file():
        parts.insert(0, folder.name)
        folder = folder.parent
    return folder, parts


def module_location(path: str, module: str) -> Tuple[str, str]:
    """(where the added module goes, the name the fixed file imports it by).

    In the package the table names, at its place there; otherwise next to the file."""
    wanted = module.split(".")
    folder = Path(path).parent
    for top in (folder, *folder.parents):  # the tree's copy of the package the table names
        if top.name == wanted[0] and (top / "__init__.py").is_file():
            if top.parent.joinpath(*wanted[:-1]).is_dir():
                target = top.parent.joinpath(*wanted[:-1], wanted[-1] + ".py")
                return os.path.normpath(str(target)), module
            break
    _, package = _package_of(folder)
    target = folder / (wanted[-1] + ".py")
    return os.path.normpath(str(target)), ".".join([*package, wanted[-1]])
