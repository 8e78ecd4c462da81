"""A fix as a `git format-patch` file: header lines, the commit message, a diffstat,
then one `diff --git` per changed file (an added module as `new file mode 100644`
from /dev/null). Paths are from the tree's root (castlint.pr.changes), so the file
applies there with `git apply`, `git am` or `patch -p1`.

The text is a str; bytes that are not UTF-8 in a file are carried as surrogate
escapes: write it with errors="surrogateescape" (write_text below) and the patch
holds the file's own bytes.
"""

from __future__ import annotations

import difflib
import email.utils
import hashlib
import os
import textwrap
import time
from collections.abc import Sequence

from castlint.pr.changes import FileChange, split_lines

NO_NEWLINE = "\\ No newline at end of file\n"
ZERO_ID = "0" * 40
MAGIC_DATE = "Mon Sep 17 00:00:00 2001"  # what git format-patch writes after the commit id
DEFAULT_AUTHOR = "castlint <castlint@localhost>"
STAT_WIDTH = 72  # git format-patch's diffstat width


def blob_id(data: bytes) -> str:
    """The git object id of a file holding data (what the `index` line names)."""
    return hashlib.sha1(b"blob %d\0" % len(data) + data).hexdigest()


def _text_lines(data: bytes) -> list[str]:
    return [line.decode("utf-8", "surrogateescape") for line in split_lines(data)]


def line_counts(old: bytes, new: bytes) -> tuple[int, int]:
    """(lines added, lines removed) between old and new, as the hunks below count them."""
    added = removed = 0
    matcher = difflib.SequenceMatcher(None, _text_lines(old), _text_lines(new))
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag in ("replace", "delete"):
            removed += i2 - i1
        if tag in ("replace", "insert"):
            added += j2 - j1
    return added, removed


def file_diff(change: FileChange) -> str:
    """One file's `diff --git` section."""
    mode = "100755" if change.executable else "100644"
    old = change.old or b""
    head = [f"diff --git a/{change.path} b/{change.path}\n"]
    if change.added:
        head += [
            f"new file mode {mode}\n",
            f"index {ZERO_ID}..{blob_id(change.new)}\n",
            "--- /dev/null\n",
        ]
    else:
        head += [
            f"index {blob_id(old)}..{blob_id(change.new)} {mode}\n",
            f"--- a/{change.path}\n",
        ]
    head.append(f"+++ b/{change.path}\n")
    hunks = list(difflib.unified_diff(_text_lines(old), _text_lines(change.new), n=3))[2:]  # own file header
    body = "".join(line if line.endswith("\n") else line + "\n" + NO_NEWLINE for line in hunks)
    return "".join(head) + body


def diffstat(changes: Sequence[FileChange], width: int = STAT_WIDTH) -> str:
    """git's diffstat: a line per file (path | lines changed +++--), the totals, the added files."""
    if not changes:
        return " 0 files changed\n"
    counts = [c.counts() for c in changes]
    name_w = max(len(c.path) for c in changes)
    totals = [a + r for a, r in counts]
    count_w = len(str(max(totals)))
    graph_w = max(width - name_w - count_w - 4, 10)
    biggest = max(totals) or 1
    lines = []
    for change, (add, rem), total in zip(changes, counts, totals):
        if biggest > graph_w:  # scaled as git scales it: every non-zero count keeps one mark
            add, rem = (_scaled(add, biggest, graph_w), _scaled(rem, biggest, graph_w))
        lines.append(
            f" {change.path.ljust(name_w)} | {str(total).rjust(count_w)} {'+' * add}{'-' * rem}".rstrip() + "\n"
        )
    added, removed = sum(a for a, _ in counts), sum(r for _, r in counts)
    files = len(changes)
    summary = f" {files} file{'s' if files != 1 else ''} changed"
    if added:
        summary += f", {added} insertion{'s' if added != 1 else ''}(+)"
    if removed:
        summary += f", {removed} deletion{'s' if removed != 1 else ''}(-)"
    lines.append(summary + "\n")
    lines += [f" create mode 100644 {c.path}\n" for c in changes if c.added]
    return "".join(lines)


def _scaled(n: int, biggest: int, width: int) -> int:
    return 0 if n == 0 else (n * (width - 1)) // biggest + 1


def patch_date(now: float | None = None) -> str:
    """The Date line's value: now (or SOURCE_DATE_EPOCH, for a reproducible file)."""
    if now is None:
        epoch = os.environ.get("SOURCE_DATE_EPOCH", "").strip()
        now = float(epoch) if epoch.isdigit() else time.time()
    return email.utils.formatdate(now, localtime=True)


def render_patch(
    changes: Sequence[FileChange],
    subject: str,
    message: str = "",
    *,
    author: str = DEFAULT_AUTHOR,
    date: str | None = None,
    signature: str = "",
) -> str:
    """The patch file: `From`/`Date`/`Subject` lines, the message, the diffstat, the diffs."""
    subject = " ".join(subject.split())
    parts = [
        f"From {ZERO_ID} {MAGIC_DATE}\n",
        f"From: {author}\n",
        f"Date: {date or patch_date()}\n",
        f"Subject: [PATCH] {subject}\n",
        "\n",
    ]
    body = wrap_message(message)
    if body:
        parts.append(body + "\n")
    parts += ["---\n", diffstat(changes), "\n"]
    parts += [file_diff(c) for c in changes]
    parts.append(f"-- \n{signature}\n\n" if signature else "")
    return "".join(parts)


def wrap_message(message: str, width: int = 72) -> str:
    """The commit message, each paragraph wrapped at width; a paragraph with a line that starts
    with `-`, `*`, `|` or a space (a list, code, a table) is kept as it is."""
    out = []
    for paragraph in message.strip("\n").split("\n\n"):
        lines = paragraph.split("\n")
        if any(line.startswith(("-", " ", "|", "*")) for line in lines):
            out.append("\n".join(line.rstrip() for line in lines))
        elif paragraph.strip():
            out.append(
                textwrap.fill(
                    " ".join(paragraph.split()),
                    width,
                    break_on_hyphens=False,
                    break_long_words=False,
                )
            )
    return "\n\n".join(out) + "\n" if out else ""


def write_text(path: str, text: str) -> None:
    """Write a patch (or a PR body) to path, its surrogate escapes back as the bytes they were."""
    with open(path, "w", encoding="utf-8", errors="surrogateescape", newline="") as fh:
        fh.write(text)
