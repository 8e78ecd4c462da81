"""How castlint shows a path: relative to a root, with forward slashes."""
from __future__ import annotations

import os
from typing import Optional


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
