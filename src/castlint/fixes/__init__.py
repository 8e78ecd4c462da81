"""The generic part of fixing: a rule's codemod (castlint.checks.<rule>.fix) rewrites the
tree; here its rewrite becomes edits (edit_set), is re-checked and written (pipeline,
write). The codemods themselves live with the rules that find their sites.

Importing this package loads nothing heavy: the names below come from
castlint.fixes.pipeline (libcst) when first used, so castlint.fixes.edit_set serves
reporters and the session without the parser.
"""

from __future__ import annotations

_PIPELINE = (
    "API_CHOICES",
    "Codemod",
    "CodemodResult",
    "FixError",
    "FixOptions",
    "FixOutcome",
    "SourceFix",
    "Fixer",
    "apply_fixes",
    "codemod_named",
    "fix_files",
    "fix_source",
    "unified_diff",
    "write_fixes",
)
__all__ = list(_PIPELINE)


def __getattr__(name: str):
    if name in _PIPELINE:
        from castlint.fixes import pipeline

        return getattr(pipeline, name)
    raise AttributeError(f"module 'castlint.fixes' has no attribute {name!r}")
