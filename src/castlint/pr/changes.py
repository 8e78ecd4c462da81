"""What a fix changed, as a pull request sees it: each file's bytes before and after,
by its path from the tree's root.

The root is the directory that holds the tree's top-level package (for
.../sglang/srt/layers/attention/x.py, the parent of sglang/): the paths a patch
names and `git apply` / `patch -p1` resolve from there.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass


@dataclass(frozen=True)
class FileChange:
    path: str  # from the tree's root, with forward slashes
    old: bytes | None  # None: a file the fix adds
    new: bytes
    executable: bool = False  # the file on disk has an execute bit (the patch's mode)

    @property
    def added(self) -> bool:
        return self.old is None

    def counts(self) -> tuple[int, int]:
        """(lines added, lines removed), as the patch's diffstat counts them."""
        from castlint.pr.patch import line_counts

        return line_counts(self.old or b"", self.new)


def package_root(path: str, package: str | None = None) -> str:
    """The directory that holds the top-level package path lies in: the parent of the
    nearest folder named package (the tables' package, rules/sglang.toml [pin_source], whose
    subpackages may be namespace packages, as sglang/srt is), else of the topmost folder of
    the chain of folders with an __init__.py above it (its own folder when in no package)."""
    if package:
        from castlint.common.versions import package_dir

        found = package_dir(path, package)
        if found is not None and (found / "__init__.py").is_file():
            return str(found.parent)
    folder = os.path.dirname(os.path.abspath(path))
    while os.path.isfile(os.path.join(folder, "__init__.py")):
        parent = os.path.dirname(folder)
        if parent == folder:
            break
        folder = parent
    return folder


def tree_root(paths: Iterable[str], package: str | None = None) -> str | None:
    """The one root for every path: the deepest folder that holds each path's package root."""
    roots = [package_root(p, package) for p in paths]
    if not roots:
        return None
    return os.path.commonpath(roots)


def relative(path: str, root: str) -> str:
    rel = os.path.relpath(os.path.abspath(path), root)
    return rel.replace(os.sep, "/")


def file_changes(changes: Sequence[tuple[str, bytes | None, bytes]], root: str | None = None) -> list[FileChange]:
    """FileChanges from castlint.fixes.FixOutcome.changes ((path, old or None, new)), one per
    path (the first), sorted by path from the root; a change that changes nothing is left out."""
    if not changes:
        return []
    root = root or tree_root([path for path, _, _ in changes])
    seen = {}
    for path, old, new in changes:
        if old == new:
            continue
        rel = relative(path, root)
        if rel not in seen:
            seen[rel] = FileChange(rel, old, new, _executable(path, old))
    return [seen[rel] for rel in sorted(seen)]


def _executable(path: str, old: bytes | None) -> bool:
    if old is None:  # an added module: a plain file (100644)
        return False
    try:
        return bool(os.stat(path).st_mode & 0o111)
    except OSError:
        return False


_LINE = re.compile(rb"[^\n]*\n|[^\n]+\Z")


def split_lines(data: bytes) -> list[bytes]:
    """data's lines as git sees them: split after each LF only (a CR stays in its line)."""
    return _LINE.findall(data)
