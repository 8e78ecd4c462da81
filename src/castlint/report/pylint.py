"""--output-format pylint: ruff's pylint-style lines, `path:line: [CODE] message`.

Read by tools that parse pylint's parseable output (for example Jenkins' warnings-ng)."""

from __future__ import annotations

from castlint.report.names import escaped


def render(findings, errors, meta) -> str:
    lines = [f"{escaped(f.path)}:{f.start.line}: [{f.code}] {escaped(f.message)}" for f in findings]
    lines += [f"{escaped(e.path)}:{e.line or 1}: [E902] {escaped(e.message)}" for e in errors]
    return "\n".join(lines) + ("\n" if lines else "")
