"""One module per output format. FORMATS maps a --format name to its renderer.

A renderer takes (findings, errors, meta) and returns the report as a string;
reporters never analyze.
"""
from castlint.report import github, json_format, rdjson, sarif, text

FORMATS = {
    "text": text.render,
    "json": json_format.render,
    "sarif": sarif.render,
    "github": github.render,
    "rdjson": rdjson.render,
}
