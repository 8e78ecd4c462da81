"""--format json: a versioned schema for machines.

Always valid UTF-8 without lone surrogates: a file name that is not valid UTF-8
is shown with U+FFFD in `path`, and `path_uri` (only present then) holds its
raw bytes percent-encoded, so the exact file can be found (castlint.report.names).
"""

from __future__ import annotations

import json

from castlint.report.names import clean, is_clean, uri_path

SCHEMA_VERSION = 1


def _with_uri(item) -> dict:
    data = item.to_dict()
    if not is_clean(item.path):
        data["path_uri"] = uri_path(item.path)
    return data


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
        "findings": [_with_uri(f) for f in findings],
        "errors": [_with_uri(e) for e in errors],
    }
    payload = clean(payload)
    if "trace" in meta:  # `castlint trace`: what the run saw (each runtime finding has its `runtime`)
        payload["trace"] = meta["trace"]
    return json.dumps(payload, indent=2, sort_keys=False) + "\n"
