"""The encoding a Python file declares (PEP 263), and its text."""

from __future__ import annotations

import io
import tokenize


def source_encoding(source: bytes) -> str:
    """The encoding the bytes declare (BOM or coding cookie); utf-8 when none, or a bad one."""
    try:
        encoding, _ = tokenize.detect_encoding(io.BytesIO(source).readline)
    except SyntaxError:
        return "utf-8"
    return encoding


def source_text(source: bytes) -> str:
    """The file's text, undecodable bytes replaced, without a BOM."""
    try:
        text = source.decode(source_encoding(source), errors="replace")
    except LookupError:
        text = source.decode("utf-8", errors="replace")
    return text[1:] if text.startswith("\ufeff") else text
