"""--output-format json-lines: one JSON object per line (ruff's json-lines).

Each finding is the object --format json lists under `findings`; each file that could
not be checked is an object with `"type": "error"` (findings have `"type": "finding"`).
Every line is valid UTF-8 JSON on its own: nothing in a value can break a line."""

from __future__ import annotations

import json

from castlint.report.json_format import _with_uri
from castlint.report.names import clean


def render(findings, errors, meta) -> str:
    lines = [json.dumps(clean(dict(_with_uri(f), type="finding")), ensure_ascii=False) for f in findings]
    lines += [json.dumps(clean(dict(_with_uri(e), type="error")), ensure_ascii=False) for e in errors]
    return "".join(line + "\n" for line in lines)
