"""What the server computes for one document, without pygls: findings, fixes, suppressions.

Kept apart from the protocol so that each answer is a plain function of (path, text)."""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import List, Optional, Tuple


@dataclass
class Checked:
    findings: list
    errors: list


def session_for(path: str):
    """The document's castlint.session.Session: its nearest config, as `castlint check PATH` reads
    it, read afresh for each request (a config created or edited while the server runs is read)."""
    from castlint.session import Session

    return Session(None, [path])


def settings_for(path: str):
    """(Config, Tables) of the document (session_for)."""
    return session_for(path).settings()


def check_text(path: str, text: str) -> Checked:
    """The findings and errors of the unsaved text, under the document's own settings."""
    from castlint.models import FileError
    from castlint.session import SessionError

    try:
        outcome = session_for(path).check_source(text.encode("utf-8"), path)
    except SessionError as exc:
        return Checked([], [FileError(path, 0, str(exc), "config")])
    return Checked(outcome.findings, list(outcome.run_errors))


def fixed_text(path: str, text: str) -> Optional[str]:
    """The text with castlint's safe fixes applied (what `castlint fix` writes), or None."""
    from castlint.session import FixOptions, SessionError

    source = text.encode("utf-8")
    try:
        outcome = session_for(path).check_source(source, path, fix=FixOptions())
    except SessionError:  # an unusable config: the diagnostics say why, there is no fix to offer
        return None
    if outcome.run_errors or outcome.new_source is None or outcome.new_source == source:
        return None
    return outcome.new_source.decode("utf-8")


def suppressed_line(text: str, start: int, end: int, code: str) -> Optional[Tuple[int, str]]:
    """(0-based line, its new text with the line ending) with `# noqa: code` added, or None."""
    from castlint.noqa import add_to_source

    source = text.encode("utf-8")
    new, edited, _ = add_to_source(source, [(start, end, code)])
    if not edited:
        return None
    old_lines = text.splitlines(keepends=True)
    new_lines = new.decode("utf-8").splitlines(keepends=True)
    for number, (old, line) in enumerate(zip(old_lines, new_lines)):
        if old != line:
            return number, line
    return None


def path_of(uri: str, fallback: Optional[str] = None) -> str:
    """A document's file path (an unsaved `untitled:` document: a name in the current folder)."""
    from urllib.parse import unquote, urlparse

    parsed = urlparse(uri)
    if parsed.scheme == "file":
        return unquote(parsed.path)
    return fallback or os.path.join(os.getcwd(), "untitled.py")


def whole_range(text: str) -> Tuple[int, int]:
    """(last line, its length) for an edit that replaces the whole document."""
    lines = text.split("\n")
    return len(lines) - 1, len(lines[-1])


def utf16_column(line_text: str, column: int) -> int:
    """A 1-based code-point column -> LSP's 0-based UTF-16 character offset."""
    prefix = line_text[: max(column - 1, 0)]
    return len(prefix.encode("utf-16-le")) // 2


def line_text(lines: List[str], number: int) -> str:
    return lines[number - 1] if 0 < number <= len(lines) else ""
