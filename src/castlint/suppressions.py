"""`# castlint: ignore[CL001]` and `# noqa: CL001` comments.

A bare `# castlint: ignore` (or bare `# noqa`) silences every code on its line.
A finding is silenced by a comment on any line it spans.
"""

from __future__ import annotations

import io
import re
import tokenize
from dataclasses import dataclass, field
from typing import List, Optional, Tuple

_CASTLINT = re.compile(r"#\s*castlint:\s*ignore(?:\[(?P<codes>[^\]]*)\])?", re.IGNORECASE)
_NOQA = re.compile(r"#\s*noqa(?::\s*(?P<codes>[A-Z]+[0-9]+(?:[\s,]+[A-Z]+[0-9]+)*))?", re.IGNORECASE)
CODE_PREFIX = "CL"
# `# castlint: noqa` (or `# castlint: noqa: CL001, CL003`) on a line of its own: the whole file,
# as ruff's file-level exemption comment
_FILE_NOQA = re.compile(
    r"^[ \t]*#[ \t]*castlint[ \t]*:[ \t]*noqa"
    r"(?:[ \t]*:[ \t]*(?P<codes>[A-Z]+[0-9]*(?:[\s,]+[A-Z]+[0-9]*)*))?"
    r"[ \t]*(?:#.*)?$",
    re.IGNORECASE | re.MULTILINE,
)


@dataclass
class Suppression:
    line: int
    column: int
    codes: Optional[Tuple[str, ...]]  # None: every code
    style: str  # "castlint" | "noqa"
    used: set = field(default_factory=set)

    def covers(self, code: str) -> bool:
        return self.codes is None or code in self.codes

    @property
    def reportable(self) -> bool:
        """Only castlint's own suppressions can be reported unused; a bare noqa is shared."""
        if self.style == "castlint":
            return True
        return self.codes is not None and any(c.startswith(CODE_PREFIX) for c in self.codes)


def parse_suppressions(source: str) -> List[Suppression]:
    found: List[Suppression] = []
    try:
        tokens = list(tokenize.generate_tokens(io.StringIO(source).readline))
    except (tokenize.TokenError, IndentationError, SyntaxError):
        return found
    for tok in tokens:
        if tok.type != tokenize.COMMENT:
            continue
        match = _CASTLINT.search(tok.string)
        style = "castlint"
        if match is None:
            match = _NOQA.search(tok.string)
            style = "noqa"
        if match is None:
            continue
        raw = match.group("codes")
        codes = None if raw is None else tuple(c.strip().upper() for c in re.split(r"[\s,]+", raw) if c.strip())
        if style == "noqa" and codes is not None:
            codes = tuple(c for c in codes)
        found.append(Suppression(tok.start[0], tok.start[1] + 1, codes, style))
    return found


def apply(findings: list, suppressions: List[Suppression]) -> list:
    """Drop silenced findings, marking which suppressions did something."""
    by_line = {}
    for s in suppressions:
        by_line.setdefault(s.line, []).append(s)
    kept = []
    for finding in findings:
        silenced = False
        for line in range(finding.start.line, finding.end.line + 1):
            for s in by_line.get(line, ()):
                if s.covers(finding.code):
                    s.used.add(finding.code)
                    silenced = True
        if not silenced:
            kept.append(finding)
    return kept


def file_exemption(source: str) -> Optional[Tuple[str, ...]]:
    """The codes a file-level `# castlint: noqa[: CODES]` comment exempts the file from
    (() for every code), or None when the file has none."""
    if "castlint" not in source.lower():
        return None
    codes: Optional[Tuple[str, ...]] = None
    for match in _FILE_NOQA.finditer(source):
        raw = match.group("codes")
        if raw is None:
            return ()
        found = tuple(c.strip().upper() for c in re.split(r"[\s,]+", raw) if c.strip())
        codes = tuple(dict.fromkeys((codes or ()) + found))
    return codes


def exempt(findings: list, codes: Optional[Tuple[str, ...]]) -> list:
    """findings less those a file-level exemption (file_exemption's answer) covers."""
    if codes is None:
        return findings
    if not codes:
        return []
    return [f for f in findings if not any(f.code.startswith(c) for c in codes)]
