"""One module per output format. FORMATS maps a --format name to its renderer.

A renderer takes (findings, errors, meta) and returns the report as a string;
reporters never analyze, nor load config or compute fixes. The formats in
SHOWS_FIX_SUGGESTIONS show the concrete edits of fixable findings: the caller
computes them once with the run's config and tables
(castlint.fixes.suggestions.suggest_fixes) and passes them as
meta["fix_suggestions"] (finding index -> FindingFix).
"""
from castlint.report import github, json_format, rdjson, sarif, text

FORMATS = {
    "text": text.render,
    "json": json_format.render,
    "sarif": sarif.render,
    "github": github.render,
    "rdjson": rdjson.render,
}
SHOWS_FIX_SUGGESTIONS = frozenset({"sarif", "rdjson"})
