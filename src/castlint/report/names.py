"""File names in reports: every format writes valid UTF-8, whatever bytes a name holds.

On POSIX a file name is bytes; Python hands castlint a str in which bytes that are
not UTF-8 are lone surrogates (PEP 383, `surrogateescape`). Such a str cannot be
written as UTF-8, and JSON must not carry lone surrogates, so each format encodes
names the way its specification asks:

- SARIF `artifactLocation.uri` (and the `path_uri` that --format json adds for
  such names): a URI, whose path is the name's raw bytes, percent-encoded
  (RFC 3986), so the exact file can be recovered;
- JSON, rdjson and github strings: Unicode text, undecodable bytes shown as
  U+FFFD (the replacement character);
- text, for people: undecodable bytes as `\\xNN`, which a terminal shows.
"""

from __future__ import annotations

import os
from typing import Any
from urllib.parse import quote_from_bytes

from castlint.common.terminal import terminal_safe, terminal_safe_lines  # noqa: F401 - re-exported


def is_clean(text: str) -> bool:
    """True when text encodes as UTF-8 (no lone surrogates)."""
    if text.isascii():
        return True
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def raw_bytes(text: str) -> bytes:
    """The bytes a (surrogateescape'd) name stands for."""
    try:
        return text.encode("utf-8", "surrogateescape")
    except UnicodeEncodeError:  # surrogates that do not stand for bytes
        return text.encode("utf-8", "surrogatepass")


def display(text: str) -> str:
    """Valid Unicode for JSON and UIs: undecodable bytes become U+FFFD."""
    return text if is_clean(text) else raw_bytes(text).decode("utf-8", "replace")


def escaped(text: str) -> str:
    """Valid Unicode for people, safe on a terminal: undecodable bytes become \\xNN, and
    control characters are written out (terminal_safe)."""
    return terminal_safe(text if is_clean(text) else raw_bytes(text).decode("utf-8", "backslashreplace"))


def uri_path(text: str) -> str:
    """A URI path (or relative reference): the raw bytes, percent-encoded, '/' separators kept."""
    return quote_from_bytes(raw_bytes(text.replace(os.sep, "/") if os.sep != "/" else text), safe="/")


def file_uri(path: str) -> str:
    """file:// URI of an absolute path, from its raw bytes."""
    from pathlib import Path

    if is_clean(path):
        return Path(path).as_uri()
    return "file://" + ("" if path.startswith("/") else "/") + uri_path(path)


def clean(value: Any) -> Any:
    """A JSON-ready structure with every string (keys too) made valid Unicode."""
    if isinstance(value, str):
        return display(value)
    if isinstance(value, dict):
        return {clean(k) if isinstance(k, str) else k: clean(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [clean(v) for v in value]
    return value
