"""Text for a terminal: no byte of the input may act on it.

A file name, a line of code in a frame or a cached message can hold ESC (the start
of an escape sequence that recolours, moves the cursor or retitles the window),
CR or LF (which could forge a `path:line:col: CODE` line) or a bidirectional
override. Everything castlint prints for people goes through terminal_safe,
which spells them out the way Python writes them in a string: `\\x1b`, `\\n`,
`\\r`, `\\u202e`. Tabs stay. Machine formats escape as their specification
says instead (JSON, SARIF, rdjson, GitHub workflow commands).
"""

from __future__ import annotations

import re

# What a terminal acts on instead of showing: C0 controls but the tab (ESC starts an escape
# sequence, CR and LF move the cursor and could forge a finding line), DEL, C1 controls, and
# the Unicode line separators and bidirectional overrides ("Trojan source").
_CONTROL = re.compile("[\x00-\x08\x0a-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]")
_NAMED = {"\n": "\\n", "\r": "\\r"}


def _spell(match) -> str:
    char = match.group()
    if char in _NAMED:
        return _NAMED[char]
    code = ord(char)
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def terminal_safe(text: str) -> str:
    """text with every control character spelled out: ESC as \\x1b, a newline as \\n, CR as
    \\r, U+202E as \\u202e; tabs stay. What castlint writes for people goes through it."""
    return _CONTROL.sub(_spell, text) if _CONTROL.search(text) else text


def terminal_safe_lines(text: str) -> str:
    """terminal_safe on each line of a multi-line text (a diff), keeping its line breaks."""
    return "\n".join(terminal_safe(line) for line in text.split("\n"))
