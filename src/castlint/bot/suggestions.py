"""The concrete edits behind fixable findings, for SARIF fixes, rdjson suggestions and PR suggestions.

`castlint.fixes.fix_source` rewrites a whole file; here the before/after text is
split into change blocks (difflib opcodes) and each block is attributed to the
finding whose lines it touches. A codemod whose edits reach lines away from
its finding (the FlashInfer MLA rewrite adds an init-time guard, for one) cannot
be split per finding: then every fixable finding of that file gets the whole
file's change set, marked `whole_file`, so nothing applies half a fix.

Only safe fixes are computed unless unsafe=True, as `castlint fix` does. Any
failure (no fix engine, a file that changed, a codemod error) yields no edits:
reports then carry the fix's description only.
"""
from __future__ import annotations

import difflib
import os
from dataclasses import dataclass
from typing import Dict, List, Optional, Sequence, Tuple


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

    def touches(self, first: int, last: int) -> bool:
        if self.start == self.end:  # insertion between lines start and start+1
            return first <= self.start + 1 and last >= self.start
        return self.first_line <= last and self.last_line >= first


@dataclass(frozen=True)
class FindingFix:
    blocks: Tuple[Block, ...]
    whole_file: bool  # blocks are the whole file's fixes, not this finding's alone
    old_text: str  # the file's text the blocks apply to

    def unified_diff(self, path: str) -> str:
        """A unified diff of just these blocks (3 lines of context)."""
        old = self.old_text.splitlines(keepends=True)
        new = list(old)
        for b in sorted(self.blocks, key=lambda b: b.start, reverse=True):
            new[b.start:b.end] = list(b.new_lines)
        lines = difflib.unified_diff(old, new, fromfile=f"a/{path}", tofile=f"b/{path}")
        return "".join(line if line.endswith("\n") else line + "\n\\ No newline at end of file\n" for line in lines)


def blocks_between(path: str, old_text: str, new_text: str) -> List[Block]:
    old = old_text.splitlines(keepends=True)
    new = new_text.splitlines(keepends=True)
    out = []
    matcher = difflib.SequenceMatcher(a=old, b=new, autojunk=False)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag != "equal":
            out.append(Block(path, i1, i2, tuple(old[i1:i2]), tuple(new[j1:j2])))
    return out


def attribute(findings: Sequence, blocks: Sequence[Block], old_text: str) -> Dict[int, FindingFix]:
    """finding index -> its fix, for the fixable findings of one file."""
    fixable = [(i, f) for i, f in enumerate(findings) if f.fixable]
    owners: Dict[int, List[Block]] = {i: [] for i, _ in fixable}
    orphan = False
    for block in blocks:
        hits = [i for i, f in fixable if block.touches(f.start.line, f.end.line)]
        if not hits:
            orphan = True
        for i in hits:
            owners[i].append(block)
    if orphan:
        return {i: FindingFix(tuple(blocks), True, old_text) for i, _ in fixable}
    return {i: FindingFix(tuple(bs), False, old_text) for i, bs in owners.items() if bs}


def _load(paths: Sequence[str], meta: Optional[dict]):
    meta = meta or {}
    config, tables = meta.get("config"), meta.get("tables")
    if config is None or tables is None:
        from pathlib import Path

        from castlint.config import load_config
        from castlint.tables import load_tables

        config = load_config(list(paths), Path(meta["config_file"]) if meta.get("config_file") else None)
        tables = load_tables(config.extend_rules)
    return config, tables


def fixes_for(findings: Sequence, meta: Optional[dict] = None, unsafe: bool = False) -> Dict[int, FindingFix]:
    """finding index (in findings) -> the edits that fix it; fixable findings only."""
    by_path: Dict[str, List[int]] = {}
    for i, f in enumerate(findings):
        if f.fixable and (unsafe or f.fix.safety.value == "safe"):
            by_path.setdefault(f.path, []).append(i)
    if not by_path:
        return {}
    try:
        from castlint.fixes import FixOptions, fix_source
        config, tables = _load(sorted(by_path), meta)
    except Exception:  # no fix engine in this build, or config that no longer loads
        return {}
    out: Dict[int, FindingFix] = {}
    for path, indices in by_path.items():
        try:
            with open(path, "rb") as fh:
                source = fh.read()
            result = fix_source(source, path, tables, FixOptions(unsafe=unsafe, dry_run=True), config)
            if result.new_source == source:
                continue
            encoding = _encoding(source)
            old_text = source.decode(encoding)
            new_text = result.new_source.decode(encoding)
        except Exception:  # unreadable, changed, or a codemod refused: description only
            continue
        local = [findings[i] for i in indices]
        blocks = blocks_between(path, old_text, new_text)
        for k, fix in attribute(local, blocks, old_text).items():
            out[indices[k]] = fix
    return out


def _encoding(source: bytes) -> str:
    try:
        import libcst as cst

        return cst.parse_module(source).encoding
    except Exception:
        return "utf-8"


# -- the shapes the formats need ------------------------------------------------


def line_offsets(text: str) -> List[int]:
    """Character offset of the start of each line (0-based lines), plus len(text)."""
    offsets, pos = [], 0
    for line in text.splitlines(keepends=True):
        offsets.append(pos)
        pos += len(line)
    offsets.append(pos)
    return offsets


def char_span(block: Block, offsets: List[int]) -> Tuple[int, int, str]:
    """(charOffset, charLength, inserted text) of block in the file's text."""
    start = offsets[min(block.start, len(offsets) - 1)]
    end = offsets[min(block.end, len(offsets) - 1)]
    return start, end - start, "".join(block.new_lines)


def github_suggestion(block: Block, old_text: str) -> Optional[Tuple[int, int, str]]:
    """(first line, last line, suggestion body) that replaces whole lines on the new side of a PR."""
    old = old_text.splitlines(keepends=True)
    new = [line.rstrip("\r\n") for line in block.new_lines]
    if block.start < block.end:
        return block.first_line, block.last_line, "\n".join(new)
    if not old:
        return None
    if block.start > 0:  # an insertion: suggest the line before it plus the new lines
        anchor = block.start
        return anchor, anchor, "\n".join([old[anchor - 1].rstrip("\r\n")] + new)
    return 1, 1, "\n".join(new + [old[0].rstrip("\r\n")])


def relpath(path: str, root: Optional[str] = None) -> str:
    root = root or os.getcwd()
    rel = os.path.relpath(os.path.abspath(path), os.path.abspath(root))
    return rel.replace(os.sep, "/")
