"""--format rdjson: reviewdog's Diagnostic Format (one JSON document).

    castlint check --format rdjson | reviewdog -f=rdjson -reporter=github-pr-review

Positions are 1-based; columns count UTF-8 bytes, as the format specifies (castlint
counts code points, so non-ASCII lines are converted). A fixable finding carries
`suggestions` with the replacement text when it carries the fix's edits (Fix.edits,
computed by the run; safe fixes only), which reviewdog turns into suggested changes. Files that
could not be checked are ERROR diagnostics with code `castlint/<kind>`.
Always valid UTF-8: undecodable bytes in a file name show as U+FFFD.
"""

from __future__ import annotations

import json
from pathlib import Path

from castlint.models import Severity
from castlint.report.github import ci_path, finding_message
from castlint.report.names import clean

SEVERITY = {Severity.ERROR: "ERROR", Severity.WARNING: "WARNING", Severity.NOTE: "INFO"}


def _source() -> dict:
    from castlint.project import repository_url

    return {"name": "castlint", "url": repository_url()}  # [project.urls] Repository


class _Lines:
    def __init__(self):
        self.cache = {}

    def get(self, path: str) -> list:
        if path not in self.cache:
            try:
                self.cache[path] = Path(path).read_text(encoding="utf-8", errors="surrogateescape").splitlines()
            except OSError:
                self.cache[path] = []
        return self.cache[path]

    def byte_column(self, path: str, line: int, column: int) -> int:
        """1-based code-point column -> 1-based UTF-8 byte column."""
        lines = self.get(path)
        if not 0 < line <= len(lines):
            return column
        text = lines[line - 1][: max(column - 1, 0)]
        return len(text.encode("utf-8", "surrogateescape")) + 1 + max(column - 1 - len(lines[line - 1]), 0)


def _position(lines: _Lines, path: str, pos) -> dict:
    return {"line": pos.line, "column": lines.byte_column(path, pos.line, pos.column)}


def _suggestions(fix) -> list:
    old = list(fix.old_lines)
    out = []
    for block in sorted(fix.blocks, key=lambda b: b.start):
        text = "".join(block.new_lines)
        start = {"line": block.start + 1, "column": 1}
        if block.end < len(old):
            end = {"line": block.end + 1, "column": 1}
        elif block.start == block.end:  # insertion at the end of the file
            last = old[-1] if old else ""
            start = end = {"line": max(len(old), 1), "column": len(last.encode("utf-8", "surrogateescape")) + 1}
            if last and not last.endswith("\n"):
                text = "\n" + text
        else:  # the block runs to the end of the file: stop before its last newline
            last = old[block.end - 1]
            stripped = last.rstrip("\r\n")
            end = {"line": block.end, "column": len(stripped.encode("utf-8", "surrogateescape")) + 1}
            if last != stripped and text.endswith(last[len(stripped) :]):
                text = text[: len(text) - len(last) + len(stripped)]
        out.append({"range": {"start": start, "end": end}, "text": text})
    return out


def build(findings, errors, meta) -> dict:
    lines = _Lines()
    from castlint.fixes.edit_set import finding_fixes  # (only a report that shows fixes)

    fixes = finding_fixes(findings)
    diagnostics = []
    for i, f in enumerate(findings):
        diagnostic = {
            "message": finding_message(f),
            "location": {
                "path": ci_path(f.path),
                "range": {"start": _position(lines, f.path, f.start), "end": _position(lines, f.path, f.end)},
            },
            "severity": SEVERITY[f.severity],
            "source": _source(),
            "code": {"value": f.code},
        }
        if i in fixes:
            diagnostic["suggestions"] = _suggestions(fixes[i])
        diagnostics.append(diagnostic)
    for e in errors:
        location = {"path": ci_path(e.path)}
        if e.line and e.line > 0:
            location["range"] = {"start": {"line": e.line}}
        diagnostics.append(
            {
                "message": e.message,
                "location": location,
                "severity": "ERROR",
                "source": _source(),
                "code": {"value": f"castlint/{e.kind}"},
            }
        )
    return clean({"source": _source(), "diagnostics": diagnostics})


def render(findings, errors, meta) -> str:
    return json.dumps(build(findings, errors, meta), indent=2, ensure_ascii=False) + "\n"
