"""--output-format grouped: ruff's findings grouped by file.

backend.py:
  21:20 CL001 [*] whole-pool cast to q.dtype of ...

Found 1 finding.
"""

from __future__ import annotations

from castlint.report.concise import mark, summary
from castlint.report.names import escaped


def render(findings, errors, meta) -> str:
    by_path: dict = {}
    for f in findings:
        by_path.setdefault(f.path, ([], []))[0].append(f)
    for e in errors:
        by_path.setdefault(e.path, ([], []))[1].append(e)
    lines = []
    for path in sorted(by_path):
        found, failed = by_path[path]
        rows = [(f"{f.start.line}:{f.start.column}", f"{f.code} {mark(f)}{escaped(f.message)}") for f in found]
        rows += [(f"{e.line}:0", f"error: {escaped(e.message)}") for e in failed]
        width = max(len(where) for where, _ in rows)
        lines.append(f"{escaped(path)}:")
        lines += [f"  {where:<{width}} {text}" for where, text in rows]
        lines.append("")
    if not meta.get("no_files"):
        lines += summary(findings, errors)
    return "\n".join(lines) + ("\n" if lines else "")
