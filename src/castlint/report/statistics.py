"""--statistics: one line per rule, as ruff prints it (count, code, [*] when fixable, name), or
JSON; the per-backend bytes of a decode step after them. Renders castlint.session.Statistics."""

from __future__ import annotations

import json

from castlint.models import human_bytes
from castlint.report.names import escaped


def render(stats, as_json: bool = False) -> str:
    rows = stats.rows
    if as_json:
        payload = [
            {
                "code": r["code"],
                "name": r["name"],
                "count": r["count"],
                "fixable": r["safe"] == r["count"],
                "fixable_count": r["safe"],
                "unsafe_fixable_count": r["unsafe"],
            }
            for r in rows
        ]
        return json.dumps(payload, indent=2) + "\n"
    width = max((len(str(r["count"])) for r in rows), default=1)
    lines = []
    for r in rows:
        # [*]: `castlint fix` fixes every one; [-]: some (or only with --unsafe-fixes)
        mark = "[*]" if r["safe"] == r["count"] else ("[-]" if r["safe"] or r["unsafe"] else "   ")
        lines.append(f"{r['count']:>{width}}\t{r['code']}\t{mark} {r.get('rule_name', r['name'])}")
    if stats.backends:
        lines.append("")
        lines.append("per decode step, by backend (a server runs one):")
        lines += [f"{human_bytes(n):>10}\t{escaped(name)}" for name, n in stats.backends]
    return "\n".join(lines) + ("\n" if lines else "")
