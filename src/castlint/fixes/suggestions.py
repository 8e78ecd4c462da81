"""The concrete edits behind fixable findings, for SARIF fixes, rdjson suggestions and PR suggestions.

`castlint.fixes.fix_source` rewrites a whole file; here the before/after text is
split into change blocks (difflib opcodes) and each block is attributed to the
finding whose lines it touches. A codemod whose edits reach lines away from
its finding (the FlashInfer MLA rewrite adds an init-time guard, for one) cannot
be split per finding: then every fixable finding of that file gets the whole
file's change set, marked `whole_file`, so nothing applies half a fix.

The caller passes the run's tables and config (the ones the findings came
from: `--config`, `extend-rules`), so a suggestion is the fix `castlint fix`
would make in that run. Only safe fixes are computed unless unsafe=True, as
`castlint fix` does. A file that cannot be fixed (unreadable, changed, a
codemod refused) yields no edits: reports then carry the fix's description only.
"""
from __future__ import annotations

import difflib
from dataclasses import dataclass
from typing import Dict, List, Sequence, Tuple

from castlint.common.diffs import unified_diff
from castlint.common.encoding import source_encoding
from castlint.config import Config
from castlint.fixes import FixOptions, fix_source
from castlint.tables import Tables


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
        for block in sorted(self.blocks, key=lambda b: b.start, reverse=True):
            new[block.start:block.end] = list(block.new_lines)
        return unified_diff(path, old, new)


def blocks_between(path: str, old_text: str, new_text: str) -> List[Block]:
    """The changed line blocks between two versions of a file's text."""
    old = old_text.splitlines(keepends=True)
    new = new_text.splitlines(keepends=True)
    blocks = []
    matcher = difflib.SequenceMatcher(a=old, b=new, autojunk=False)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag != "equal":
            blocks.append(Block(path, i1, i2, tuple(old[i1:i2]), tuple(new[j1:j2])))
    return blocks


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
    return {i: FindingFix(tuple(owned), False, old_text) for i, owned in owners.items() if owned}


def suggest_fixes(findings: Sequence, tables: Tables, config: Config, unsafe: bool = False) -> Dict[int, FindingFix]:
    """finding index (in findings) -> the edits that fix it; fixable findings only.

    tables and config are the run's: the fix is computed as `castlint fix` would make it."""
    by_path: Dict[str, List[int]] = {}
    for i, f in enumerate(findings):
        if f.fixable and (unsafe or f.fix.safety.value == "safe"):
            by_path.setdefault(f.path, []).append(i)
    suggestions: Dict[int, FindingFix] = {}
    for path, indices in by_path.items():
        texts = _fixed_texts(path, tables, config, unsafe)
        if texts is None:
            continue
        old_text, new_text = texts
        blocks = blocks_between(path, old_text, new_text)
        for k, fix in attribute([findings[i] for i in indices], blocks, old_text).items():
            suggestions[indices[k]] = fix
    return suggestions


def _fixed_texts(path: str, tables: Tables, config: Config, unsafe: bool):
    """(old text, fixed text) of the file at path, or None when the fix changes nothing or cannot run."""
    try:
        with open(path, "rb") as fh:
            source = fh.read()
        result = fix_source(source, path, tables, FixOptions(unsafe=unsafe, dry_run=True), config)
        if result.new_source == source:
            return None
        encoding = source_encoding(source)
        return source.decode(encoding), result.new_source.decode(encoding)
    except Exception:  # unreadable, changed, or a codemod refused: description only
        return None
