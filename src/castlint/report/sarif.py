"""--format sarif: SARIF 2.1.0 for GitHub code scanning and other SARIF viewers.

One run, castlint as the driver, every rule described from castlint.checks
(short/full description, help as text and markdown, fix safety). Each result
carries its region (columns in Unicode code points, as castlint counts them),
the enclosing function as a logical location, a stable partial fingerprint
and, in a property bag, the cost model's bytes. A fixable finding carries a
SARIF `fix` with the concrete replacement when its finding carries the fix's
edits (Fix.edits: the run computed them, castlint.session; safe fixes only, like
`castlint fix`); the fix's description is in the result's properties. Files castlint could not read or parse are tool
execution notifications, and make `executionSuccessful` false.

Artifact URIs percent-encode the file name's raw bytes, so a name that is not
valid UTF-8 is exact; every other string is valid Unicode (castlint.report.names).
"""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path
from typing import List, Tuple

from castlint.models import Severity
from castlint.project import repository_url
from castlint.report.github import ci_path, workspace_root
from castlint.report.names import clean, file_uri, uri_path

SCHEMA_URI = "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"
SRCROOT = "%SRCROOT%"
LEVEL = {Severity.ERROR: "error", Severity.WARNING: "warning", Severity.NOTE: "note"}


def _rule_descriptor(rule) -> dict:
    text = (
        f"{rule.summary}.\n\nWhat it does: {rule.what_it_does}\n\nWhy it matters: {rule.why_it_matters}\n\n"
        f"Example:\n{rule.example}\n\nFix safety: {rule.fix_safety}\n\nMore: `castlint rules {rule.code}`"
    )
    return {
        "id": rule.code,
        "name": rule.name,
        "shortDescription": {"text": rule.summary},
        "fullDescription": {"text": rule.what_it_does},
        "help": {"text": text, "markdown": rule.markdown()},
        "defaultConfiguration": {"level": "note" if rule.kind == "meta" else "warning"},
        "properties": {
            "tags": ["performance", "castlint"] + (["runtime"] if rule.kind == "runtime" else []),
            "precision": "high",
            "fixSafety": rule.fix_safety,
            "whyItMatters": rule.why_it_matters,
        },
    }


def _uri(path: str) -> dict:
    """artifactLocation: a URI whose path is the name's raw bytes, percent-encoded (RFC 3986),
    so a name that is not valid UTF-8 is still exact."""
    rel = ci_path(path)
    if os.path.isabs(rel) or rel.startswith("/"):
        return {"uri": file_uri(rel)}
    return {"uri": uri_path(rel), "uriBaseId": SRCROOT}


def _fingerprint(f, line_cache: dict) -> str:
    lines = line_cache.get(f.path)
    if lines is None:
        try:
            lines = Path(f.path).read_text(encoding="utf-8", errors="replace").splitlines()
        except OSError:
            lines = []
        line_cache[f.path] = lines
    text = lines[f.start.line - 1].strip() if 0 < f.start.line <= len(lines) else ""
    key = "\0".join((f.code, ci_path(f.path), f.function or "", text))
    return hashlib.sha256(key.encode("utf-8", "surrogatepass")).hexdigest()[:32]


def _region(start, end) -> dict:
    return {
        "startLine": start.line,
        "startColumn": start.column,
        "endLine": end.line,
        "endColumn": max(end.column, start.column) if end.line == start.line else end.column,
    }


def _line_offsets(lines) -> List[int]:
    """Character offset of the start of each line (0-based lines), plus the text's length."""
    offsets, pos = [], 0
    for line in lines:
        offsets.append(pos)
        pos += len(line)
    offsets.append(pos)
    return offsets


def _char_span(block, offsets: List[int]) -> Tuple[int, int, str]:
    """(charOffset, charLength, inserted text) of a change block in the file's text."""
    start = offsets[min(block.start, len(offsets) - 1)]
    end = offsets[min(block.end, len(offsets) - 1)]
    return start, end - start, "".join(block.new_lines)


def _sarif_fix(f, fix) -> dict:
    offsets = _line_offsets(fix.old_lines)
    replacements = []
    for block in sorted(fix.blocks, key=lambda b: b.start):
        offset, length, text = _char_span(block, offsets)
        replacements.append(
            {"deletedRegion": {"charOffset": offset, "charLength": length}, "insertedContent": {"text": text}}
        )
    what = f.fix.description + (" (applies every castlint fix in this file)" if fix.whole_file else "")
    return {
        "description": {"text": f"{what} [{f.fix.codemod}, {f.fix.safety.value}]"},
        "artifactChanges": [{"artifactLocation": _uri(f.path), "replacements": replacements}],
    }


def _result(f, rule_index: dict, fixes: dict, index: int, line_cache: dict) -> dict:
    location = {"physicalLocation": {"artifactLocation": _uri(f.path), "region": _region(f.start, f.end)}}
    if f.function:
        location["logicalLocations"] = [{"fullyQualifiedName": f.function, "kind": "function"}]
    result = {
        "ruleId": f.code,
        "level": LEVEL[f.severity],
        "message": {"text": f.message},
        "locations": [location],
        "partialFingerprints": {"castlintFinding/v1": _fingerprint(f, line_cache)},
    }
    if f.code in rule_index:
        result["ruleIndex"] = rule_index[f.code]
    props = {"fixable": f.fixable}
    if f.cost is not None:
        props["cost"] = {
            "bytesPerLayer": f.cost.bytes_per_layer,
            "bytesPerStep": f.cost.bytes_per_step,
            "model": f.cost.model,
            "poolTokens": f.cost.pool_tokens,
        }
    if f.fix is not None:
        props["fix"] = {"codemod": f.fix.codemod, "safety": f.fix.safety.value, "description": f.fix.description}
    if f.unfixable_reason:
        props["unfixableReason"] = f.unfixable_reason
    result["properties"] = props
    if getattr(f, "runtime", None):  # a finding of `castlint trace`: its runtime evidence
        props["runtime"] = f.runtime
    if index in fixes:
        result["fixes"] = [_sarif_fix(f, fixes[index])]
    return result


def _notification(e) -> dict:
    note = {"level": "error", "message": {"text": e.message}, "descriptor": {"id": f"castlint/{e.kind}"}}
    physical = {"artifactLocation": _uri(e.path)}
    if e.line and e.line > 0:
        physical["region"] = {"startLine": e.line}
    note["locations"] = [{"physicalLocation": physical}]
    return note


def build(findings, errors, meta) -> dict:
    from castlint import __version__
    from castlint.checks import ALL_RULES

    rules = [_rule_descriptor(rule) for rule in ALL_RULES]
    rule_index = {rule.code: i for i, rule in enumerate(ALL_RULES)}
    from castlint.fixes.edit_set import finding_fixes  # (only a report that shows fixes)

    fixes = finding_fixes(findings)
    root = workspace_root()
    cache: dict = {}
    run = {
        "tool": {
            "driver": {
                "name": "castlint",
                "version": __version__,
                "semanticVersion": __version__,
                "informationUri": repository_url(),  # [project.urls] Repository
                "rules": rules,
            }
        },
        "originalUriBaseIds": {SRCROOT: {"uri": file_uri(str(Path(root).resolve())).rstrip("/") + "/"}},
        "columnKind": "unicodeCodePoints",
        "results": [_result(f, rule_index, fixes, i, cache) for i, f in enumerate(findings)],
        "invocations": [
            {
                "executionSuccessful": not errors,
                "toolExecutionNotifications": [_notification(e) for e in errors],
                "properties": {"filesChecked": meta.get("files", 0), "fixedFiles": meta.get("fixed_files", 0)},
            }
        ],
    }
    doc = clean({"$schema": SCHEMA_URI, "version": "2.1.0", "runs": [run]})
    if "trace" in meta:  # `castlint trace`: what the run saw
        doc["runs"][0]["invocations"][0]["properties"]["trace"] = meta["trace"]
    return doc


def render(findings, errors, meta) -> str:
    return json.dumps(build(findings, errors, meta), indent=2, ensure_ascii=False) + "\n"
