"""--format json: a versioned schema for machines."""
from __future__ import annotations

import json

SCHEMA_VERSION = 1


def render(findings, errors, meta) -> str:
    from castlint import __version__

    payload = {
        "schema_version": SCHEMA_VERSION,
        "tool": {"name": "castlint", "version": __version__},
        "summary": {
            "files_checked": meta.get("files", 0),
            "findings": len(findings),
            "errors": len(errors),
            "fixable": sum(1 for f in findings if f.fixable),
        },
        "findings": [f.to_dict() for f in findings],
        "errors": [e.to_dict() for e in errors],
    }
    return json.dumps(payload, indent=2, sort_keys=False) + "\n"
