"""--output-format gitlab: GitLab Code Quality (a JSON array of issues, ruff's gitlab).

    castlint check --output-format gitlab -o gl-code-quality-report.json .
    # .gitlab-ci.yml: artifacts: reports: codequality: gl-code-quality-report.json

Each issue has the fields GitLab reads: `description`, `check_name`, `fingerprint`
(stable across runs: a hash of path, code, message and the occurrence number, not of the
line, so a finding that moves keeps it), `severity` (error: major, warning: minor,
note: info; a file that could not be checked: critical) and `location` with `path`
(relative to CI_PROJECT_DIR, else the current directory) and `positions`."""

from __future__ import annotations

import hashlib
import json
import os
from typing import Dict

from castlint.common.paths import display_path
from castlint.models import Severity
from castlint.report.names import clean

SEVERITY = {Severity.ERROR: "major", Severity.WARNING: "minor", Severity.NOTE: "info"}


def project_path(path: str) -> str:
    return display_path(path, os.environ.get("CI_PROJECT_DIR") or os.getcwd())


def _fingerprint(seen: Dict[str, int], *parts: str) -> str:
    base = "\0".join(parts)
    seen[base] = seen.get(base, 0) + 1
    return hashlib.md5(f"{base}\0{seen[base]}".encode("utf-8", "surrogateescape")).hexdigest()


def render(findings, errors, meta) -> str:
    seen: Dict[str, int] = {}
    issues = []
    for f in findings:
        path = project_path(f.path)
        issues.append(
            {
                "type": "issue",
                "check_name": f.code,
                "description": f"{f.code}: {f.message}",
                "categories": ["Performance"],
                "severity": SEVERITY[f.severity],
                "fingerprint": _fingerprint(seen, path, f.code, f.message),
                "location": {
                    "path": path,
                    "positions": {
                        "begin": {"line": f.start.line, "column": f.start.column},
                        "end": {"line": f.end.line, "column": f.end.column},
                    },
                },
            }
        )
    for e in errors:
        path = project_path(e.path)
        issues.append(
            {
                "type": "issue",
                "check_name": f"castlint/{e.kind}",
                "description": f"castlint could not check this file: {e.message}",
                "categories": ["Bug Risk"],
                "severity": "critical",
                "fingerprint": _fingerprint(seen, path, e.kind, e.message),
                "location": {"path": path, "lines": {"begin": max(e.line, 1)}},
            }
        )
    return json.dumps(clean(issues), indent=2) + "\n"
