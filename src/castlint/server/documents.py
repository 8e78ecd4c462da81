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


def settings_for(path: str):
    """(Config, Tables) of the document: its nearest config, as `castlint check PATH` reads it.
    The per-folder memory of castlint.config is cleared so a config created or edited while
    the server runs is read."""
    from castlint import config as configmod
    from castlint.settings import CommandLine, Resolver

    configmod._NEAREST.clear()
    return Resolver(CommandLine(), [path]).for_path(path)


def check_text(path: str, text: str) -> Checked:
    """The findings and errors of the unsaved text, under the document's own settings."""
    from castlint.engine import check_source
    from castlint.models import FileError
    from castlint.settings import SettingsRefused

    try:
        config, tables = settings_for(path)
    except SettingsRefused as exc:
        return Checked([], [FileError(path, 0, str(exc), "config")])
    result = check_source(path, text.encode("utf-8"), tables, config)
    return Checked(sorted(result.findings, key=lambda f: f.sort_key()), list(result.errors))


def fixed_text(path: str, text: str) -> Optional[str]:
    """The text with castlint's safe fixes applied (what `castlint fix` writes), or None."""
    from castlint.cli import _fix_stdin_work
    from castlint.engine import call_checked
    from castlint.fixes import FixOptions

    config, tables = settings_for(path)
    source = text.encode("utf-8")
    done, lost = call_checked(_fix_stdin_work, (path, source, config, tables, FixOptions()), config)
    if lost is not None:
        return None
    _, new, errors, _ = done
    if errors or new == source:
        return None
    return new.decode("utf-8")


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
