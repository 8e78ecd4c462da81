"""Paths -> the Python files to check (honouring exclude), and the text prefilter.

The walk is os.scandir-based and decides `exclude` with precompiled patterns on
root-relative paths built as it goes (Config.excluded resolves every path,
which cost more than the rest of a warm run). The answer is the same as
Config.excluded's: tests/test_robustness.py compares them.

A walk also skips, as ruff does:
- what .gitignore files say to ignore (those in the walked tree, and those
  above it up to the git work tree's root, plus .git/info/exclude), matched by
  pathspec's gitignore rules; `respect_gitignore = False` turns it off;
- virtual environments, recognised by their pyvenv.cfg, whatever their name;
- a directory symlink whose target the walk reaches anyway (inside the walked
  tree, or a directory already walked): it would only repeat files. A link back
  up to one of its own ancestors is a real loop, and is reported.

A path named on the command line is checked whatever exclude or .gitignore
say about it, as ruff does: a file is checked, and a directory is walked (what
is below it is still matched, against patterns read from the directory down).
With force_exclude (ruff's --force-exclude, what the pre-commit hook passes,
since pre-commit names every file) a named path that exclude or .gitignore
matches is skipped instead, and `skipped` gets a line naming the pattern and
where it comes from.
"""

from __future__ import annotations

import fnmatch
import os
import re
from pathlib import Path
from typing import Callable, Iterable, List, Optional, Tuple

from castlint.config import Config
from castlint.models import FileError

PY_SUFFIXES = (".py", ".pyi")
VENV_MARKER = "pyvenv.cfg"  # written by venv, virtualenv and uv into every virtual environment


class _Excluder:
    """Config.excluded(path), fast for paths walked from a directory."""

    def __init__(self, config: Config, warn: Optional[Callable[[str], None]] = None):
        self.config = config
        self.warn = warn  # for ignore-file lines that are skipped
        patterns = list(config.exclude)
        whole = []
        for pattern in patterns:
            bare = pattern.rstrip("/")
            whole.append(fnmatch.translate(bare))
            whole.append(fnmatch.translate(bare + "/*"))
        self.whole = re.compile("|".join(whole)) if whole else None  # _glob_match(rel, p)
        self.exact = {p.rstrip("/") for p in patterns}
        self.part = re.compile("|".join(fnmatch.translate(p) for p in patterns)) if patterns else None
        try:
            self.root = os.path.realpath(str(config.root))
        except OSError:
            self.root = None

    def rel_of_dir(self, given: str, real: str) -> str:
        """Config.relative() of a directory, from its path as walked and its real path."""
        root = self.root
        if root is not None and (real == root or real.startswith(root.rstrip("/") + "/")):
            return "." if real == root else real[len(root.rstrip("/")) + 1 :]
        return Path(given).as_posix()

    def rel_excluded(self, rel: str, new_parts: Iterable[str]) -> bool:
        """Excluded, given that the parts of rel other than new_parts were already tested."""
        if self.part is None:
            return False
        if rel in self.exact or self.whole.match(rel):
            return True
        return any(self.part.match(part) for part in new_parts)

    def path_excluded(self, path: str) -> bool:
        try:
            return self.config.excluded(Path(path))
        except (OSError, RuntimeError):  # a symlink loop cannot be resolved: let the read report it
            return False


def discover(
    paths: Iterable[str],
    config: Config,
    warn: Optional[Callable[[str], None]] = None,
    force_exclude: bool = False,
    skipped: Optional[List[str]] = None,
    config_for: Optional[Callable[[str], Config]] = None,
) -> Tuple[List[str], List[FileError]]:
    """Every .py/.pyi file under paths, sorted, plus errors for paths that cannot be walked.
    warn: called with a line for each unusable .gitignore line (skipped, as git does).
    force_exclude: skip a named path that exclude or .gitignore matches, with a line in
    skipped saying which pattern did. config_for: the config of a named path (its nearest;
    default: config), whose exclude and respect-gitignore its walk follows."""
    files: List[str] = []
    errors: List[FileError] = []
    seen = set()
    excluders = {}
    for raw in paths:
        raw = str(raw)
        path = Path(raw)
        if not os.path.lexists(raw):
            errors.append(FileError(raw, 0, "no such file or directory", "read"))
            continue
        own = config_for(raw) if config_for is not None else config
        if force_exclude:
            why = skip_reason(raw, own)
            if why is not None:
                if skipped is not None:
                    skipped.append(f"{raw}: skipped (--force-exclude): {why}")
                continue
        if os.path.isdir(raw):
            key = id(own)
            if key not in excluders:
                excluders[key] = _Excluder(own, warn)
            _walk(
                raw,
                excluders[key],
                errors,
                files,
                seen,
                named_excluded=own.excluded(path),
                nested=_nested(config_for, excluders, warn) if config_for is not None else None,
            )
        else:
            try:
                key = os.path.realpath(raw)
            except OSError:
                key = raw
            if key not in seen:
                seen.add(key)
                files.append(raw)
    return sorted(set(files)), errors


CONFIG_NAMES = ("castlint.toml", "pyproject.toml")


def _nested(config_for, excluders: dict, warn):
    """For a walk: the _Excluder of a folder that holds a config file, from that folder's own
    config (a nested project's exclude and respect-gitignore apply below it, as in ruff)."""

    def excluder_for(dirpath: str) -> "_Excluder":
        config = config_for(os.path.join(dirpath, "__init__.py"))
        key = id(config)
        if key not in excluders:
            excluders[key] = _Excluder(config, warn)
        return excluders[key]

    return excluder_for


def skip_reason(raw: str, config: Config) -> Optional[str]:
    """Why a walk would skip this path (exclude or .gitignore), naming the pattern and its
    source; None when nothing would."""
    pattern = exclude_pattern(config, Path(raw))
    if pattern is not None:
        source = f"{config.path}: exclude" if config.path is not None else "the default exclude"
        return f"matches the exclude pattern {pattern!r} ({source}, or --exclude/--extend-exclude)"
    if config.respect_gitignore:
        ignored = gitignore_pattern(raw)
        if ignored is not None:
            return ignored + " (--no-respect-gitignore checks it)"
    return None


def exclude_pattern(config: Config, path: Path) -> Optional[str]:
    """The first exclude pattern matching path (as Config.excluded decides), or None."""
    from castlint.config import _glob_match

    try:
        rel = config.relative(str(path))
    except (OSError, RuntimeError):
        return None
    parts = Path(rel).parts
    for pattern in config.exclude:
        if _glob_match(rel, pattern) or any(fnmatch.fnmatch(part, pattern) for part in parts):
            return pattern
    return None


def gitignore_pattern(raw: str) -> Optional[str]:
    """'ignored by FILE:LINE (PATTERN)' when git's ignore files ignore the path, else None."""
    try:
        real = os.path.realpath(raw)
    except OSError:
        return None
    parent, name = os.path.dirname(real), os.path.basename(real)
    chain = list(_outer_ignores(parent))
    own = _read_ignore_file(os.path.join(parent, ".gitignore"))
    if own is not None:
        chain.append((own, ""))
    is_dir = os.path.isdir(real)
    suffix = name + "/" if is_dir else name
    for ignore_file, prefix in reversed(chain):
        result = ignore_file.spec.check_file(prefix + suffix)
        if result.include is None:
            continue
        if not result.include:
            return None
        index = getattr(result, "index", None)
        where = ignore_file.path or ".gitignore"
        try:
            pattern = ignore_file.spec.patterns[index].pattern if index is not None else None
        except (IndexError, AttributeError):
            pattern = None
        line = ignore_file.line_of(index)
        return f"ignored by {where}" + (f":{line}" if line else "") + (f" ({pattern!r})" if pattern else "")
    return None


# -- .gitignore --------------------------------------------------------------


def _read_ignore_file(path: str, warn: Optional[Callable[[str], None]] = None):
    """A pathspec GitIgnoreSpec for one ignore file, or None (missing, unreadable or empty).

    A line git cannot use either (a lone `\\`, a pattern ending in a backslash, a bare `!`)
    never matches in git; here it is skipped too, with a warning naming the file and line."""
    try:
        with open(path, "r", encoding="utf-8", errors="replace") as fh:
            lines = fh.read().splitlines()
    except OSError:
        return None
    import pathspec  # only when a tree has an ignore file

    try:
        spec = pathspec.GitIgnoreSpec.from_lines(lines)
    except ValueError:  # GitIgnorePatternError: find the lines, leave them out
        usable = []
        for number, line in enumerate(lines, 1):
            try:
                pathspec.GitIgnoreSpec.from_lines([line])
            except ValueError:
                if warn is not None:
                    warn(f"{path}:{number}: {line!r} is not a valid gitignore pattern (git never matches it); skipped")
                usable.append("")  # keeps the other lines' numbers and order
                continue
            usable.append(line)
        spec = pathspec.GitIgnoreSpec.from_lines(usable)
    if not any(p.include is not None for p in spec.patterns):
        return None  # only comments
    return _IgnoreFile(spec, path)


_ANYWHERE = "^(?:.+/)?"  # how pathspec's gitignore regexes start for a pattern with no inner slash


class _IgnoreFile:
    """One ignore file: pathspec decides; a single regex over all its patterns first
    answers the common case (no pattern matches the path) in one match instead of one
    per pattern, which kept a 200-line .gitignore from costing 0.5 s on a 5,000-file tree."""

    def __init__(self, spec, path: Optional[str] = None):
        self.spec = spec
        self.path = path
        self.any = None
        try:
            parts = [
                re.sub(r"\(\?P<\w+>", "(?:", p.regex.pattern)
                for p in spec.patterns
                if p.include is not None and getattr(p, "regex", None) is not None
            ]
            if len(parts) == sum(1 for p in spec.patterns if p.include is not None):
                # `name` patterns all start "any folder, then": one such loop, not one per pattern
                anywhere = [part[len(_ANYWHERE) :] for part in parts if part.startswith(_ANYWHERE)]
                rooted = [part for part in parts if not part.startswith(_ANYWHERE)]
                branches = [f"(?:{part})" for part in rooted]
                if anywhere:
                    branches.append(_ANYWHERE + "(?:" + "|".join(f"(?:{part})" for part in anywhere) + ")")
                self.any = re.compile("|".join(branches))
        except (re.error, AttributeError, TypeError):
            self.any = None  # pathspec alone, pattern by pattern

    def line_of(self, index) -> Optional[int]:
        """The 1-based line of the pattern at index (from_lines keeps one pattern per line)."""
        return index + 1 if isinstance(index, int) else None

    def check(self, path: str) -> Optional[bool]:
        """True: ignored, False: re-included (!pattern), None: no pattern says."""
        if self.any is not None and self.any.match(path) is None:
            return None
        return self.spec.check_file(path).include


def _git_root(real_dir: str) -> Optional[str]:
    """The work tree root (the folder holding .git) at or above real_dir, or None."""
    here = real_dir
    while True:
        if os.path.exists(os.path.join(here, ".git")):
            return here
        parent = os.path.dirname(here)
        if parent == here:
            return None
        here = parent


def _outer_ignores(real_top: str, warn=None) -> tuple:
    """(spec, prefix) for ignore files above the walked directory, up to the git root.

    prefix is the walked directory's path relative to the ignore file's folder,
    ending in "/", so that prefix + a path inside the walk is what the file matches."""
    root = _git_root(real_top)
    if root is None:
        return ()
    chain = []
    exclude = _read_ignore_file(os.path.join(root, ".git", "info", "exclude"), warn)
    rel_top = os.path.relpath(real_top, root).replace(os.sep, "/")
    top_prefix = "" if rel_top == "." else rel_top + "/"
    if exclude is not None:
        chain.append((exclude, top_prefix))
    if rel_top != ".":
        parts = rel_top.split("/")
        for depth in range(len(parts)):  # the root's .gitignore, then each folder down to (not including) the top
            folder = os.path.join(root, *parts[:depth])
            spec = _read_ignore_file(os.path.join(folder, ".gitignore"), warn)
            if spec is not None:
                chain.append((spec, "/".join(parts[depth:]) + "/"))
    return tuple(chain)


def _top_ignored(chain: tuple) -> bool:
    """Does an ignore file above the walk ignore its top, or a folder between the two?
    (Each chain entry's prefix is the top's path relative to that file's folder.)"""
    for ignore_file, prefix in chain:
        parts = [part for part in prefix.split("/") if part]
        for depth in range(1, len(parts) + 1):
            if ignore_file.check("/".join(parts[:depth]) + "/"):
                return True
    return False


def _ignored(chain: tuple, name: str, is_dir: bool) -> bool:
    """Is name (in the directory chain belongs to) ignored? The deepest file that decides wins."""
    suffix = name + "/" if is_dir else name
    for ignore_file, prefix in reversed(chain):
        decided = ignore_file.check(prefix + suffix)
        if decided is not None:
            return decided
    return False


def _walk(
    top: str,
    excluder: _Excluder,
    errors: List[FileError],
    files: List[str],
    seen: set,
    named_excluded: bool = False,
    nested: Optional[Callable[[str], "_Excluder"]] = None,
) -> None:
    """Add the Python files under the directory top to files (their real paths to seen),
    depth-first in name order; what cannot be walked goes to errors.

    top was named on the command line, so it is walked even when it is itself ignored:
    the ignore files above it that ignore it (or a folder between it and the work
    tree's root) are not read, and when exclude matches it (named_excluded) the
    patterns are matched against paths below top."""
    try:
        real_top = os.path.realpath(top)
    except OSError as exc:
        errors.append(FileError(top, 0, f"cannot read directory: {exc.strerror or exc}", "read"))
        return
    gitignore = excluder.config.respect_gitignore
    outer = _outer_ignores(real_top, excluder.warn) if gitignore else ()
    if outer and _top_ignored(outer):
        outer = ()  # named explicitly: what ignores it does not apply inside it
    top_with_slash = real_top.rstrip("/") + "/"
    visited = set()  # (device, inode) of every directory entered
    # (path as walked, its real path, its Config.relative(), the real paths of its ancestors,
    #  the (gitignore spec, prefix) chain that applies inside it)
    top_rel = "." if named_excluded else excluder.rel_of_dir(top, real_top)
    stack = [(top, real_top, top_rel, (), outer, excluder)]
    while stack:
        dirpath, real, rel, ancestors, chain, excluder = stack.pop()
        gitignore = excluder.config.respect_gitignore
        listing = _read_dir(dirpath, top, visited, errors, excluder if gitignore else None, chain)
        if listing is None:
            continue
        entries, chain = listing
        if nested is not None and dirpath != top and any(e.name in CONFIG_NAMES for e in entries):
            inner = nested(dirpath)
            if inner is not excluder:  # a nested project: its own exclude below here
                excluder = inner
                rel = excluder.rel_of_dir(dirpath, real)
                if not excluder.config.respect_gitignore:
                    chain = ()
        inner_ancestors = ancestors + (real,)
        subdirs = []
        for entry in entries:
            name = entry.name
            full = os.path.join(dirpath, name)
            try:
                is_link = entry.is_symlink()
                is_dir = entry.is_dir()  # follows symlinks
            except OSError:
                is_link, is_dir = True, False
            if not is_dir and not name.endswith(PY_SUFFIXES):
                continue
            if chain and _ignored(chain, name, is_dir):
                continue
            if is_link:
                linked = _follow_link(full, is_dir, excluder, inner_ancestors, real_top, top_with_slash, errors)
                if linked is None:
                    continue
                child_real, child_rel = linked
            else:
                child_real = real + "/" + name if real != "/" else "/" + name
                child_rel = name if rel == "." else rel + "/" + name
                if excluder.rel_excluded(child_rel, (name,)):
                    continue
            if is_dir:
                if name.endswith(PY_SUFFIXES):
                    errors.append(
                        FileError(
                            full,
                            0,
                            "is a directory named like a Python file, not a Python "
                            "file (the files inside it are still checked)",
                            "read",
                        )
                    )
                child_chain = tuple((spec, prefix + name + "/") for spec, prefix in chain)
                subdirs.append((full, child_real, child_rel, inner_ancestors, child_chain, excluder))
            elif child_real not in seen:
                seen.add(child_real)
                files.append(full)
        stack.extend(reversed(subdirs))


def _read_dir(
    dirpath: str, top: str, visited: set, errors: List[FileError], gitignore: Optional[_Excluder], chain: tuple
):
    """(the directory's entries sorted by name, the ignore chain that applies inside it), or
    None when the walk does not enter it: unreadable, entered before, or a virtual environment.
    gitignore: the walk's _Excluder when .gitignore files are honoured (its warn reports bad lines)."""
    try:
        st = os.stat(dirpath)
    except OSError as exc:
        errors.append(FileError(dirpath, 0, f"cannot read directory: {exc.strerror or exc}", "read"))
        return None
    key = (st.st_dev, st.st_ino)
    if key in visited:
        return None  # reached twice through links: a duplicate, not an error
    visited.add(key)
    try:
        with os.scandir(dirpath) as it:
            entries = sorted(it, key=lambda e: e.name)
    except OSError as exc:
        errors.append(FileError(dirpath, 0, f"cannot read directory: {exc.strerror or exc}", "read"))
        return None
    if dirpath != top and any(entry.name == VENV_MARKER for entry in entries):
        return None  # a virtual environment: third-party code, not the project's
    if gitignore is not None and any(entry.name == ".gitignore" for entry in entries):
        spec = _read_ignore_file(os.path.join(dirpath, ".gitignore"), gitignore.warn)
        if spec is not None:
            chain = chain + ((spec, ""),)
    return entries, chain


def _follow_link(
    full: str,
    is_dir: bool,
    excluder: _Excluder,
    inner_ancestors: tuple,
    real_top: str,
    top_with_slash: str,
    errors: List[FileError],
) -> Optional[Tuple[str, str]]:
    """(real path, Config.relative()) of a symlink met in the walk, or None when the walk skips it:
    excluded, a loop back to an ancestor (reported), or a directory the walk reaches anyway."""
    # a link: Config.relative() resolves it, so ask Config itself
    if excluder.path_excluded(full):
        return None
    try:
        child_real = os.path.realpath(full)
    except OSError:
        child_real = full
    child_rel = excluder.rel_of_dir(full, child_real)
    if is_dir:
        if child_real in inner_ancestors:
            errors.append(
                FileError(
                    full, 0, "symlink loop: this directory links back to one of its own parents; not followed", "read"
                )
            )
            return None
        if child_real == real_top or child_real.startswith(top_with_slash):
            return None  # the walk reaches the target itself: following the link only repeats it
    return child_real, child_rel
