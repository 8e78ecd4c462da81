"""`castlint check --add-noqa`: a suppression comment for every current finding.

The way a large engine adopts a linter (ruff's --add-noqa): silence what is
there today, so that CI fails only on new findings, and work the list down.

Each finding gets `# noqa: CODE` on the first line it spans that can take a
comment: not a line that ends inside a string, nor one that ends in a
backslash continuation (castlint.suppressions accepts a comment on any line a
finding spans). An existing comment on that line is extended, never replaced:
`# noqa: E501` becomes `# noqa: E501, CL001`, `# castlint: ignore[CL002]`
becomes `# castlint: ignore[CL002, CL001]`, any other comment gets
`  # noqa: CL001` after it. CL900 (an unused suppression) is never suppressed:
delete the comment instead.

Every byte not on an edited line is kept; the encoding, BOM and line endings
are kept; writes are atomic and refuse a file that changed since it was read
(castlint.fixes.write).
"""

from __future__ import annotations

import io
import re
import tokenize
from dataclasses import dataclass, field
from typing import Dict, Iterable, List, Optional, Set, Tuple

from castlint.common.encoding import source_encoding
from castlint.models import FileError

BOM = b"\xef\xbb\xbf"


def _never(code: str) -> bool:
    """A meta rule's finding (CL900: a suppression that silences nothing) is fixed by
    deleting the comment, never by adding one."""
    from castlint.checks import rule_for

    rule = rule_for(code)
    return rule is not None and rule.kind == "meta"


_NOQA_CODES = re.compile(r"#\s*noqa:\s*(?P<codes>[A-Z]+[0-9]+(?:[\s,]+[A-Z]+[0-9]+)*)", re.IGNORECASE)
_CASTLINT = re.compile(r"#\s*castlint:\s*ignore\[(?P<codes>[^\]]*)\]", re.IGNORECASE)


@dataclass
class NoqaOutcome:
    added: int = 0  # comments written or extended (one per line)
    files: List[str] = field(default_factory=list)
    errors: List[FileError] = field(default_factory=list)
    unplaced: List[Tuple[str, int, str]] = field(default_factory=list)  # (path, line, code) with no line to take it
    notes: List[Tuple[str, str]] = field(default_factory=list)  # (path, why it was not written)


def _decode(source: bytes) -> Tuple[str, str, bool]:
    """(text without a BOM, the encoding to write it back in, whether the file starts with a BOM)."""
    bom = source.startswith(BOM)
    encoding = source_encoding(source)
    if encoding == "utf-8-sig":
        encoding = "utf-8"
    text = source[len(BOM) :].decode(encoding) if bom else source.decode(encoding)
    return text, encoding, bom


def _lines(text: str) -> List[str]:
    """Physical lines with their own endings (\\n, \\r\\n or \\r), as the tokenizer counts them."""
    return io.StringIO(text, newline="").readlines()


def _commentable(text: str, lines: List[str]) -> Tuple[Set[int], Dict[int, tokenize.TokenInfo]]:
    """(1-based lines whose end cannot take a comment, {line: its comment token})."""
    blocked: Set[int] = set()
    comments: Dict[int, tokenize.TokenInfo] = {}
    for tok in tokenize.generate_tokens(io.StringIO(text, newline="").readline):
        if tok.type == tokenize.COMMENT:
            comments[tok.start[0]] = tok
        elif tok.start[0] != tok.end[0] and tok.type not in (tokenize.NEWLINE, tokenize.NL):
            blocked.update(range(tok.start[0], tok.end[0]))  # a string spanning lines
    for number, line in enumerate(lines, 1):
        if line.rstrip("\r\n").endswith("\\"):
            blocked.add(number)
    return blocked, comments


def _edit_line(line: str, comment: Optional[tokenize.TokenInfo], codes: List[str], reason: str = "") -> str:
    body = line.rstrip("\r\n")
    ending = line[len(body) :]
    joined = ", ".join(codes) + (f" {reason}" if reason else "")
    if comment is not None:
        start = comment.start[1]
        text = body[start:]
        for pattern in (_CASTLINT, _NOQA_CODES):
            match = pattern.search(text)
            if match:
                old = [c.strip() for c in re.split(r"[\s,]+", match.group("codes")) if c.strip()]
                merged = ", ".join(dict.fromkeys(old + codes))
                text = text[: match.start("codes")] + merged + text[match.end("codes") :]
                return body[:start] + text + ending
        return body + f"  # noqa: {joined}" + ending
    return body.rstrip() + f"  # noqa: {joined}" + ending if body.strip() else body + f"# noqa: {joined}" + ending


def clean_reason(reason: Optional[str]) -> str:
    """--add-noqa=REASON as it can stand after the codes: one line, no `#`, no control characters
    (it must not end the comment or start another)."""
    if not reason:
        return ""
    text = "".join(ch if ch.isprintable() else " " for ch in reason).replace("#", " ")
    return " ".join(text.split())


def add_to_source(
    source: bytes, spans: Iterable[Tuple[int, int, str]], reason: Optional[str] = None
) -> Tuple[bytes, int, List[Tuple[int, str]]]:
    """(new source, lines edited, [(line, code) that found no line]) for findings given as (start, end, code).
    reason: written after the codes of a new comment (`# noqa: CL001 REASON`), as ruff's --add-noqa=REASON."""
    text, encoding, bom = _decode(source)
    lines = _lines(text)
    blocked, comments = _commentable(text, lines)
    wanted: Dict[int, List[str]] = {}
    unplaced = []
    for start, end, code in sorted(set(spans)):
        if _never(code):
            continue
        line = next((n for n in range(start, end + 1) if n not in blocked and 1 <= n <= len(lines)), None)
        if line is None:
            unplaced.append((start, code))
            continue
        wanted.setdefault(line, [])
        if code not in wanted[line]:
            wanted[line].append(code)
    for number, codes in wanted.items():
        lines[number - 1] = _edit_line(lines[number - 1], comments.get(number), codes, clean_reason(reason))
    new_text = "".join(lines)
    data = new_text.encode(encoding)
    return (BOM + data if bom else data), len(wanted), unplaced


def add_noqa(
    findings, roots: Optional[Iterable[str]] = None, follow_symlinks_outside: bool = False, reason: Optional[str] = None
) -> NoqaOutcome:
    """Write suppressions for findings into their files (see the module docs).

    roots: the paths the run was given (default: the findings' files). As `castlint fix`
    does, a file that is a symlink (or lies under one) whose target is outside every root
    is not written unless follow_symlinks_outside; it gets a note instead."""
    from castlint.fixes.write import outside, read_snapshot, roots_of, write_or_error

    outcome = NoqaOutcome()
    by_path: Dict[str, List[Tuple[int, int, str]]] = {}
    for f in findings:
        if not _never(f.code):
            by_path.setdefault(f.path, []).append((f.start.line, f.end.line, f.code))
    real_roots = roots_of(list(roots) if roots is not None else by_path)
    for path in sorted(by_path):
        target = None if follow_symlinks_outside else outside(path, real_roots)
        if target is not None:
            outcome.notes.append(
                (
                    path,
                    f"not written: a symlink to {target}, outside the checked paths "
                    "(--follow-symlinks-outside writes through it)",
                )
            )
            continue
        try:
            source, snapshot = read_snapshot(path)
            new, edited, unplaced = add_to_source(source, by_path[path], reason)
        except OSError as exc:
            outcome.errors.append(FileError(path, 0, f"cannot read: {exc.strerror or exc}", "read"))
            continue
        except (SyntaxError, UnicodeError, LookupError, tokenize.TokenError) as exc:
            outcome.errors.append(FileError(path, 0, f"cannot add suppressions: {exc}", "fix"))
            continue
        outcome.unplaced += [(path, line, code) for line, code in unplaced]
        if new == source:
            continue
        error = write_or_error(path, new, snapshot)
        if error is not None:
            outcome.errors.append(error)
            continue
        outcome.added += edited
        outcome.files.append(path)
    return outcome
