"""--output-format full: ruff's name for the default report with code frames (castlint's text)."""

from __future__ import annotations


def render(findings, errors, meta) -> str:
    from castlint.report.text import render as text

    meta = {k: v for k, v in meta.items() if k != "trace"}  # trace's summary line is text's alone
    return text(findings, errors, meta, color=False, quiet=False)
