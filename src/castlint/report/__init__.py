"""One module per output format. FORMATS maps a --format name to its renderer.

A renderer takes (findings, errors, meta) and returns the report as a string;
reporters never analyze.
"""
from castlint.report import json_format, text

FORMATS = {"text": text.render, "json": json_format.render}
