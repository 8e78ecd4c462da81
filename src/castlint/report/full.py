"""--output-format full: ruff's name for the default report with code frames (castlint's text)."""
from __future__ import annotations


def render(findings, errors, meta) -> str:
    from castlint.report.text import render as text

    return text(findings, errors, meta, color=False, quiet=False)
