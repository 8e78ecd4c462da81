"""GitHub suggestion blocks: a fix's change block as whole lines on the new side of a PR.

The edits themselves are the findings' (Fix.edits, as line blocks from
castlint.fixes.edit_set, shared with the sarif and rdjson formats); this is only the
shape GitHub's review comments take.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Optional, Sequence, Tuple

if TYPE_CHECKING:
    from castlint.fixes.edit_set import Block


def github_suggestion(block: Block, old_lines: Sequence[str]) -> Optional[Tuple[int, int, str]]:
    """(first line, last line, suggestion body) that replaces whole lines on the new side of a PR."""
    old = list(old_lines)
    new = [line.rstrip("\r\n") for line in block.new_lines]
    if block.start < block.end:
        return block.first_line, block.last_line, "\n".join(new)
    if not old:
        return None
    if block.start > 0:  # an insertion: suggest the line before it plus the new lines
        anchor = block.start
        return anchor, anchor, "\n".join([old[anchor - 1].rstrip("\r\n")] + new)
    return 1, 1, "\n".join(new + [old[0].rstrip("\r\n")])
