"""`--diff-base REV`: keep only findings on lines added or changed since REV.

The lines come from git: `git diff -U0 -M <merge-base of REV and HEAD>` against
the working tree (so uncommitted edits count as changed), plus every line of
untracked files that git does not ignore. A finding is kept when any line of its
span was added or changed. Deleted files add no lines; a file renamed without
edits adds none either (its findings are old ones), while the edited lines of a
renamed file count under its new name.

Git is run without external diff drivers, textconv filters or a pager, so a
repository's config cannot make this step run programs.
"""

from __future__ import annotations

import os
import re
import subprocess
from typing import Dict, Iterable, List, Optional, Set

HUNK = re.compile(rb"^@@ -\d+(?:,\d+)? \+(\d+)(?:,(\d+))? @@")
GIT_TIMEOUT_S = 120


class GitDiffError(Exception):
    """--diff-base cannot be honoured: git is missing, not a repository, unknown revision, ..."""


def _git(args: List[str], cwd: str) -> bytes:
    cmd = ["git", "--no-pager", "-c", "core.quotePath=false", *args]
    env = dict(os.environ, GIT_TERMINAL_PROMPT="0", LC_ALL="C")
    try:
        proc = subprocess.run(
            cmd, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env, timeout=GIT_TIMEOUT_S, check=False
        )
    except FileNotFoundError:
        raise GitDiffError("--diff-base needs git, and no `git` executable is on PATH") from None
    except subprocess.TimeoutExpired:
        raise GitDiffError(f"`git {args[0]}` took longer than {GIT_TIMEOUT_S} s") from None
    if proc.returncode != 0:
        message = proc.stderr.decode("utf-8", "replace").strip().splitlines()
        raise _GitFailed(message[-1] if message else f"git {args[0]} exited {proc.returncode}")
    return proc.stdout


class _GitFailed(GitDiffError):
    pass


def repo_root(cwd: Optional[str] = None) -> str:
    cwd = cwd or os.getcwd()
    try:
        out = _git(["rev-parse", "--show-toplevel"], cwd)
    except _GitFailed:
        raise GitDiffError(f"--diff-base needs a git repository, and {cwd} is not inside one") from None
    return os.path.realpath(out.decode("utf-8", "surrogateescape").strip())


def _resolve_base(base_rev: str, root: str) -> str:
    if not base_rev or base_rev.startswith("-"):
        raise GitDiffError(f"--diff-base: {base_rev!r} is not a revision")
    try:
        base = _git(["rev-parse", "--verify", "--quiet", "--end-of-options", f"{base_rev}^{{commit}}"], root)
    except _GitFailed:
        raise GitDiffError(
            f"--diff-base: unknown revision {base_rev!r} (in CI, fetch it first, e.g. "
            f"actions/checkout with fetch-depth: 0)"
        ) from None
    base = base.decode().strip()
    # Compare with the point where HEAD branched off base, as a pull request does:
    # commits that landed on base since then are not this change's lines.
    try:
        merge_base = _git(["merge-base", base, "HEAD"], root).decode().strip()
    except GitDiffError:
        return base  # no HEAD yet, or unrelated histories: compare with base itself
    return merge_base or base


def _unquote(name: bytes) -> bytes:
    """Undo git's C-style quoting of a path in a diff header."""
    if not (name.startswith(b'"') and name.endswith(b'"')):
        return name
    body, out, i = name[1:-1], bytearray(), 0
    simple = {
        b"n": b"\n",
        b"t": b"\t",
        b'"': b'"',
        b"\\": b"\\",
        b"a": b"\a",
        b"b": b"\b",
        b"f": b"\f",
        b"r": b"\r",
        b"v": b"\v",
    }
    while i < len(body):
        c = body[i : i + 1]
        if c != b"\\":
            out += c
            i += 1
            continue
        nxt = body[i + 1 : i + 2]
        if nxt in simple:
            out += simple[nxt]
            i += 2
        elif nxt.isdigit():
            out.append(int(body[i + 1 : i + 4], 8))
            i += 4
        else:
            out += nxt
            i += 2
    return bytes(out)


def parse_unified_diff(diff: bytes) -> Dict[str, Set[int]]:
    """Repo-relative new path -> new-side line numbers added or changed (from -U0 output)."""
    changed: Dict[str, Set[int]] = {}
    current: Optional[str] = None
    for raw in diff.split(b"\n"):
        if raw.startswith(b"diff --git "):
            current = None
        elif raw.startswith(b"+++ "):
            name = raw[4:].rstrip(b"\r")
            if name.endswith(b"\t"):  # git appends a tab when the name has a space
                name = name[:-1]
            name = _unquote(name)
            if name == b"/dev/null":  # deleted
                current = None
            else:
                current = (name[2:] if name.startswith(b"b/") else name).decode("utf-8", "surrogateescape")
                changed.setdefault(current, set())
        elif current is not None and raw.startswith(b"@@"):
            match = HUNK.match(raw)
            if match:
                start = int(match.group(1))
                count = 1 if match.group(2) is None else int(match.group(2))
                changed[current].update(range(start, start + count))  # count 0: a pure deletion
    return changed


def changed_lines(base_rev: str, cwd: Optional[str] = None) -> Dict[str, Set[int]]:
    """Absolute real path -> lines added or changed since base_rev (see the module doc)."""
    root = repo_root(cwd)
    base = _resolve_base(base_rev, root)
    diff = _git(
        [
            "diff",
            "--no-color",
            "--no-ext-diff",
            "--no-textconv",
            "-U0",
            "-M",
            "--diff-filter=ACMR",
            "--src-prefix=a/",
            "--dst-prefix=b/",
            base,
            "--",
        ],
        root,
    )
    per_file = parse_unified_diff(diff)
    untracked = _git(["ls-files", "--others", "--exclude-standard", "-z"], root)
    out: Dict[str, Set[int]] = {}
    for rel, lines in per_file.items():
        out[os.path.realpath(os.path.join(root, rel))] = lines
    for raw in untracked.split(b"\0"):
        if raw:
            path = os.path.realpath(os.path.join(root, raw.decode("utf-8", "surrogateescape")))
            out[path] = all_lines(path)
    return out


def all_lines(path: str) -> Set[int]:
    try:
        with open(path, "rb") as fh:
            count = fh.read().count(b"\n") + 1
    except OSError:
        return set()
    return set(range(1, count + 1))


def keep_changed(findings: Iterable, changed: Dict[str, Set[int]]) -> list:
    out = []
    for f in findings:
        lines = changed.get(os.path.realpath(f.path))
        if lines and any(n in lines for n in range(f.start.line, f.end.line + 1)):
            out.append(f)
    return out


def filter_to_changed_lines(findings, base_rev: str) -> list:
    """The findings that touch a line added or changed since base_rev.

    Raises GitDiffError (with a message meant for the user) when git cannot answer.
    """
    findings = list(findings)
    return keep_changed(findings, changed_lines(base_rev))
