"""One module per output format. FORMATS maps a --format name to its renderer.

A renderer takes (findings, errors, meta) and returns the report as a string;
reporters never analyze, nor load config or compute fixes. The formats in
SHOWS_FIX_SUGGESTIONS show the concrete edits of fixable findings: the caller
computes them once with the run's config and tables
(castlint.fixes.suggestions.suggest_fixes) and passes them as
meta["fix_suggestions"] (finding index -> FindingFix).
"""
from castlint.report import (azure, concise, full, github, gitlab, grouped, json_format, json_lines, junit, pylint,
                             rdjson, sarif, text)

FORMATS = {
    "text": text.render,
    "full": full.render,
    "concise": concise.render,
    "grouped": grouped.render,
    "json": json_format.render,
    "json-lines": json_lines.render,
    "junit": junit.render,
    "sarif": sarif.render,
    "github": github.render,
    "gitlab": gitlab.render,
    "pylint": pylint.render,
    "azure": azure.render,
    "rdjson": rdjson.render,
}
SHOWS_FIX_SUGGESTIONS = frozenset({"sarif", "rdjson"})
