"""A fix as edits: what a codemod's rewrite of a file changes, as byte ranges with their
replacement text, given to the findings it serves; and edits applied back to bytes.

A codemod rewrites the tree of the analysis that found the findings
(castlint.fixes.pipeline.apply_fixes); `edits_between` turns the rewrite into
whole-line edits, and `findings_with_edits` gives each finding its own when every
edit touches the lines of a finding it serves, or, when one reaches elsewhere (an
added import, an init-time guard, a module the fix adds beside the file), one
FileFix holding every edit of the file for all of them: nothing applies half a fix.
No libcst here: reporters, the bot and the session read and apply edits without the
fix package.
"""

from __future__ import annotations

import dataclasses
import difflib
import os
from dataclasses import dataclass
from typing import Dict, Iterable, List, Optional, Sequence, Tuple

from castlint.common.encoding import source_encoding
from castlint.models import Edit, FileFix, Position


class EditConflict(ValueError):
    """Two edits of one file overlap: applying both would garble it."""


def text_encoding(source: bytes) -> str:
    """The codec an edit's content is in: the file's, a BOM kept as a character (utf-8-sig
    would add one to every edit it encodes)."""
    encoding = source_encoding(source)
    return "utf-8" if encoding == "utf-8-sig" else encoding


def edits_between(old: bytes, new: bytes, path: Optional[str] = None) -> List[Edit]:
    """The changed line blocks between two versions of a file, as edits of old."""
    if old == new:
        return []
    encoding = text_encoding(old if old else new)
    old_lines, new_lines = old.splitlines(keepends=True), new.splitlines(keepends=True)
    offsets = [0]
    for line in old_lines:
        offsets.append(offsets[-1] + len(line))
    edits = []
    matcher = difflib.SequenceMatcher(a=old_lines, b=new_lines, autojunk=False)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == "equal":
            continue
        content = b"".join(new_lines[j1:j2]).decode(encoding, errors="surrogateescape")
        edits.append(
            Edit(
                offsets[i1],
                offsets[i2],
                content,
                _position(old_lines, i1, encoding),
                _position(old_lines, i2, encoding),
                path,
            )
        )
    return edits


def _position(lines: Sequence[bytes], index: int, encoding: str) -> Position:
    """The position of the start of line `index` (0-based); past an unterminated last line, its end."""
    if index < len(lines) or not lines or lines[-1].endswith((b"\n", b"\r")):
        return Position(index + 1, 1)
    return Position(len(lines), len(lines[-1].decode(encoding, errors="replace")) + 1)


def apply_edits(source: bytes, edits: Iterable[Edit]) -> bytes:
    """source with edits applied (each once, however many findings carry it); EditConflict
    when two overlap."""
    encoding = text_encoding(source)
    ordered = sorted(set(edits), key=lambda e: (e.start, e.end))
    out, at = [], 0
    for edit in ordered:
        if edit.start < at:
            raise EditConflict(f"edits at line {edit.location.line} overlap an earlier one")
        out += [source[at : edit.start], edit.content.encode(encoding, errors="surrogateescape")]
        at = edit.end
    return b"".join(out) + source[at:]


def edits_by_file(findings: Iterable) -> Dict[Optional[str], List[Edit]]:
    """path -> the distinct edits the findings' fixes make there (a finding's own file under its path)."""
    by_path: Dict[Optional[str], List[Edit]] = {}
    for finding in findings:
        if finding.fix is None:
            continue
        for edit in finding.fix.edits:
            edits = by_path.setdefault(edit.path or finding.path, [])
            if edit not in edits:
                edits.append(edit)
    return by_path


def _touches(edit: Edit, first: int, last: int) -> bool:
    """Whether an edit reaches a finding on lines first..last (1-based): an insertion when
    it goes in right before or after them, a replacement when it shares a line with them."""
    start = edit.location.line
    if edit.start == edit.end:  # an insertion before line `start`
        return first <= start and last >= start - 1
    end = edit.end_location.line if edit.end_location.column > 1 else edit.end_location.line - 1  # inclusive
    return start <= last and end >= first


def added_module_edits(fix, read=None) -> List[Edit]:
    """The edits that write the modules a fix adds beside the file (its companions), against
    what is there now (nothing when a module is already as the fix writes it)."""
    from castlint.fixes.write import keep_line_endings

    edits = []
    for path, data in sorted(fix.companions.items()):
        data = keep_line_endings(fix.source, data)
        old = b""
        if os.path.isfile(path) and not os.path.islink(path):
            try:
                with open(path, "rb") as fh:
                    old = fh.read()
            except OSError:
                continue
        edits += edits_between(old, data, path)
    return edits


def findings_with_edits(findings: Sequence, fix) -> list:
    """findings, those the fix (a castlint.fixes.SourceFix) addressed each with the edits
    that fix it: its own, or its file's FileFix (see the module's docstring)."""
    if not fix.changed:
        return list(findings)
    served = _served(findings, fix)
    if not served:
        return list(findings)
    own = edits_between(fix.source, fix.new_source)
    added = added_module_edits(fix)
    mine: Dict[tuple, List[Edit]] = {f.key: [] for f in served}
    whole_file = bool(added)
    for edit in own:
        hits = [f for f in served if _touches(edit, f.start.line, f.end.line)]
        whole_file = whole_file or not hits
        for f in hits:
            mine[f.key].append(edit)
    whole_file = whole_file or not all(mine.values())
    file_fix = FileFix(tuple(own + added), tuple(f.key for f in served)) if whole_file else None
    out = []
    for finding in findings:
        if finding.key not in mine:
            out.append(finding)
            continue
        edits = file_fix.edits if file_fix is not None else mine[finding.key]
        out.append(dataclasses.replace(finding, fix=finding.fix.with_edits(edits, file_fix)))
    return out


def _served(findings: Sequence, fix) -> list:
    """The fixable findings the fix addressed. A later codemod finds its sites on the tree an
    earlier one rewrote, so its findings may sit on other lines: those are matched by codemod,
    leaving the sites the fix reported it did not take."""
    fixable = [f for f in findings if f.fix is not None]
    keys = {f.key for f in fix.fixed}
    served = [f for f in fixable if f.key in keys]
    moved = {f.fix.codemod for f in fix.fixed if f.key not in {g.key for g in fixable}}
    skipped = {line for line, _ in fix.skipped}
    served += [f for f in fixable if f not in served and f.fix.codemod in moved and f.start.line not in skipped]
    return served


# -- a finding's edits as whole-line change blocks (SARIF, rdjson, GitHub suggestions) ----------


@dataclass(frozen=True)
class Block:
    """Replace old lines [start, end) (0-based, end exclusive) of path with new_lines."""

    path: str
    start: int
    end: int
    old_lines: Tuple[str, ...]
    new_lines: Tuple[str, ...]

    @property
    def first_line(self) -> int:  # 1-based
        return self.start + 1

    @property
    def last_line(self) -> int:  # 1-based, inclusive; first_line - 1 for an insertion
        return self.end


@dataclass(frozen=True)
class FindingFix:
    """A finding's edits of its own file, as line blocks of the text they apply to."""

    blocks: Tuple[Block, ...]
    whole_file: bool  # the blocks are every fix of the file (a FileFix), not this finding's alone
    old_text: str  # the file's text, without a BOM
    old_lines: Tuple[str, ...]  # old_text's lines, split where the edits split them (\n, \r\n, \r)

    def unified_diff(self, path: str) -> str:
        """A unified diff of just these blocks (3 lines of context)."""
        from castlint.common.diffs import unified_diff

        new = list(self.old_lines)
        for block in sorted(self.blocks, key=lambda b: b.start, reverse=True):
            new[block.start : block.end] = list(block.new_lines)
        return unified_diff(path, list(self.old_lines), new)


def finding_fixes(findings: Sequence, safe_only: bool = True) -> Dict[int, FindingFix]:
    """finding index -> its fix's edits of its own file as line blocks, for the findings whose
    fix carries edits (safe ones only unless safe_only=False, as `castlint fix` applies them).
    Each file is read once; a file that changed since its edits were made gets none."""
    sources: Dict[str, Optional[bytes]] = {}
    out: Dict[int, FindingFix] = {}
    for i, finding in enumerate(findings):
        fix = finding.fix
        if fix is None or not fix.edits or (safe_only and fix.safety.value != "safe"):
            continue
        if finding.path not in sources:
            try:
                with open(finding.path, "rb") as fh:
                    sources[finding.path] = fh.read()
            except OSError:
                sources[finding.path] = None
        source = sources[finding.path]
        edits = [e for e in fix.edits if e.path is None]
        if source is None or not edits:
            continue
        shown = _as_blocks(finding.path, source, edits)
        if shown is not None:
            out[i] = FindingFix(shown[0], fix.file_fix is not None, shown[1], shown[2])
    return out


def _as_blocks(path: str, source: bytes, edits: Sequence[Edit]):
    """(blocks, text, lines) of line-aligned edits of source; None when they do not fit it."""
    encoding = text_encoding(source)
    raw = source.splitlines(keepends=True)
    starts: Dict[int, int] = {}
    at = 0
    for index, line in enumerate(raw):
        starts[at] = index
        at += len(line)
    starts[at] = len(raw)
    lines = [line.decode(encoding, errors="replace") for line in raw]
    if lines and lines[0].startswith("\ufeff"):
        lines[0] = lines[0][1:]
    blocks = []
    for edit in sorted(set(edits), key=lambda e: e.start):
        if edit.start not in starts or edit.end not in starts:
            return None
        first, end = starts[edit.start], starts[edit.end]
        blocks.append(Block(path, first, end, tuple(lines[first:end]), tuple(edit.content.splitlines(keepends=True))))
    return tuple(blocks), "".join(lines), tuple(lines)
