"""Runtime sites -> castlint Findings, in the one report format check uses.

A site a static finding covers (same file, a line inside the finding's span,
a code listed in [trace].confirms) *is* that finding, "confirmed at runtime":
same code, position, cost and fix, with the runtime evidence appended. Any
other site is a new finding, CL101 runtime-whole-buffer-conversion. Both
carry a `runtime` object (JSON, SARIF properties). Nothing here imports torch;
the static side imports libcst only when there is a site to classify.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from typing import Dict, Iterable, List, Optional, Sequence, Tuple

from castlint.checks.runtime_conversion import RuntimeWholeBufferConversion
from castlint.common.paths import display_path
from castlint.models import Cost, Finding, Position, Severity, human_bytes

RUNTIME_CODE, RUNTIME_NAME = RuntimeWholeBufferConversion.code, RuntimeWholeBufferConversion.name
UNFIXABLE = (
    "found at runtime only: castlint fix rewrites what static analysis sees; change this line by hand, "
    "or teach castlint the accessor/helper in extend-rules so that check reports it"
)


@dataclass(frozen=True)
class RuntimeFinding(Finding):
    """A Finding with the runtime evidence (`runtime` in JSON)."""

    runtime: Optional[dict] = field(default=None, compare=False, hash=False)


def _per_step(calls: int, steps: int) -> str:
    value = calls / max(steps, 1)
    return str(int(value)) if value == int(value) else f"{value:.1f}"


def describe(evidence: dict) -> str:
    """One line of runtime evidence."""
    calls, steps = evidence["calls"], evidence["steps"]
    read, written = evidence["bytes_read"] // max(calls, 1), evidence["bytes_written"] // max(calls, 1)
    what = evidence["op"]
    conv = f"{evidence['in_dtype']} {evidence['in_shape']} -> {evidence['out_dtype']}"
    if evidence.get("devices"):
        conv += f" ({evidence['devices']})"
    return (
        f"{what} {conv}: reads {human_bytes(read)}, writes {human_bytes(written)} per call, "
        f"{_per_step(calls, steps)} per step ({calls} call{'s' if calls != 1 else ''} in {steps} "
        f"step{'s' if steps != 1 else ''}; long-lived: {', '.join(evidence['long_lived'])})"
    )


def merge_sites(raws: Iterable[dict]) -> List[dict]:
    """Sites of one or more traced processes, merged by location, op and dtypes."""
    merged: Dict[tuple, dict] = {}
    for raw in raws:
        for site in raw.get("sites", ()):
            key = (site["path"], site["line"], site["op"], site["in_dtype"], site["out_dtype"], site.get("devices", ""))
            have = merged.get(key)
            if have is None:
                merged[key] = dict(site, long_lived=list(site["long_lived"]), stack=list(site["stack"]))
                continue
            for name in ("calls", "steps", "bytes_read", "bytes_written"):
                have[name] += site[name]
            have["long_lived"] = sorted(set(have["long_lived"]) | set(site["long_lived"]))
    return sorted(
        merged.values(), key=lambda s: (s["path"], s["line"], s["column"], s["op"], s["in_dtype"], s["out_dtype"])
    )


def _shown(path: str) -> str:
    """How a traced file is named in the report: relative to the current directory when inside it;
    a pseudo-file of compiled code ("<string>") as it is."""
    return path if path.startswith("<") else display_path(path)


def _real(path: str) -> str:
    return os.path.realpath(path) if not path.startswith("<") else path


def static_findings(
    paths: Sequence[str], jobs: int = 1, config=None, tables=None, edits=None
) -> Tuple[Dict[str, list], list, str]:
    """{realpath: [static findings]} for these files, errors, and a note ('' when it ran).

    edits: castlint.session.FixOptions whose fixes' edits the fixable findings carry (None: none).

    config, tables: the run's settings (castlint.session.Session.settings); None: those of the
    config nearest the files (raises castlint.session.SessionError when it is unusable)."""
    files = sorted(
        {display_path(p) for p in paths if not p.startswith("<") and p.endswith(".py") and os.path.isfile(p)}
    )
    if not files:
        return {}, [], ""
    try:
        from castlint.engine import check_paths
    except ImportError as exc:  # libcst missing (a GPU box with only torch): runtime findings stand alone
        return {}, [], f"static check unavailable ({exc})"
    if config is None:
        from castlint.session import Session

        config, tables = Session(None, files, trusted=files).settings()
    elif tables is None:  # a config without its tables: the builtin ones and its extend-rules
        from castlint.tables import load_tables

        tables = load_tables(config.extend_rules)
    config.cache = False
    from castlint.session import describer, take_edits

    run = check_paths(files, tables, config, jobs=max(1, jobs), cache=False, fixer=describer(edits))
    take_edits(run.results)
    out: Dict[str, list] = {}
    for f in run.findings:
        out.setdefault(_real(f.path), []).append(f)
    return out, list(run.all_errors), ""


def covering(static: List[Finding], line: int, confirms: Sequence[str]) -> Optional[Finding]:
    for f in static:
        if f.code in confirms and f.start.line <= line <= f.end.line:
            return f
    return None


def _runtime_dict(site: dict, threshold: int, confirmed: Optional[Finding]) -> dict:
    evidence = {
        "confirmed": confirmed is not None,
        "static_code": confirmed.code if confirmed is not None else None,
        "file": site["path"],
        "line": site["line"],
        "function": site["function"],
        "op": site["op"],
        "kind": site["kind"],
        "helper": site.get("helper", ""),
        "in_dtype": site["in_dtype"],
        "out_dtype": site["out_dtype"],
        "in_shape": site["in_shape"],
        "out_shape": site["out_shape"],
        "devices": site.get("devices", ""),
        "calls": site["calls"],
        "steps": site["steps"],
        "per_step": float(site["calls"]) / max(site["steps"], 1),
        "bytes_read": site["bytes_read"],
        "bytes_written": site["bytes_written"],
        "bytes_read_per_call": site["bytes_read"] // max(site["calls"], 1),
        "bytes_written_per_call": site["bytes_written"] // max(site["calls"], 1),
        "long_lived": list(site["long_lived"]),
        "stack": list(site["stack"]),
        "threshold": threshold,
    }
    return evidence


def confirm(static: Finding, evidence: dict) -> RuntimeFinding:
    fields = {k: getattr(static, k) for k in Finding.__dataclass_fields__}
    fields["message"] = f"{static.message}; confirmed at runtime: {describe(evidence)}"
    return RuntimeFinding(**fields, runtime=evidence)


def new_finding(evidence: dict, path: Optional[str] = None) -> RuntimeFinding:
    calls, steps = evidence["calls"], evidence["steps"]
    per_call = evidence["bytes_read_per_call"] + evidence["bytes_written_per_call"]
    noun = {"copy": "copy", "dequantize": "dequantization", "quantize": "quantization"}.get(
        evidence.get("kind"), "conversion"
    )
    message = f"runtime whole-buffer {noun}: {describe(evidence)}; no static finding covers this line"
    column = evidence.get("column") or 1
    return RuntimeFinding(
        code=RUNTIME_CODE,
        name=RUNTIME_NAME,
        severity=Severity.ERROR if steps > 1 or calls > 1 else Severity.WARNING,
        path=path or _shown(evidence["file"]),
        start=Position(evidence["line"], column),
        end=Position(evidence["line"], column),
        message=message,
        cost=Cost(per_call, int(per_call * calls / max(steps, 1)), "measured at runtime", 0),
        unfixable_reason=UNFIXABLE,
        function=evidence["function"],
        runtime=evidence,
    )


def build_report(
    raws: Sequence[dict],
    static: bool = True,
    jobs: int = 1,
    config=None,
    confirms: Optional[Sequence[str]] = None,
    tables=None,
    edits=None,
):
    """(findings, errors, meta) from the raw JSON of one or more tracers.

    config, tables: the settings the static check runs with; edits: the fix options whose
    edits its fixable findings carry (see static_findings)."""
    if confirms is None:
        from castlint.trace.table import load_trace_tables

        confirms = load_trace_tables().confirms
    sites = merge_sites(raws)
    threshold = max((r.get("threshold", 0) for r in raws), default=0)
    static_by_file, errors, note = ({}, [], "static check off")
    if static and sites:
        static_by_file, errors, note = static_findings([s["path"] for s in sites], jobs, config, tables, edits)
    findings = []
    for site in sites:
        cover = covering(static_by_file.get(_real(site["path"]), []), site["line"], confirms)
        evidence = _runtime_dict(site, threshold, cover)
        evidence["column"] = site["column"]
        findings.append(confirm(cover, evidence) if cover is not None else new_finding(evidence))
    findings, suppressed = _unsuppressed(findings)
    findings.sort(key=lambda f: f.sort_key())
    meta = {
        "files": len({_real(s["path"]) for s in sites}),
        "trace": {
            "threshold": threshold,
            "ops_seen": sum(r.get("ops_seen", 0) for r in raws),
            "ops_not_inspected": sum(r.get("ops_not_inspected", 0) for r in raws),
            "processes": len(raws),
            "steps_marked": sum(r.get("steps_marked", 0) for r in raws),
            "sites": len(sites),
            "confirmed": sum(1 for f in findings if f.runtime and f.runtime["confirmed"]),
            "new": sum(1 for f in findings if f.code == RUNTIME_CODE),
            "static": note or "checked",
            "suppressed": suppressed,
        },
    }
    return findings, errors, meta


def _unsuppressed(findings: List[Finding]) -> Tuple[List[Finding], int]:
    """Drop runtime findings that a `# castlint: ignore[...]` / `# noqa: ...` comment on their lines
    silences (for their code or CL101: a cast the author accepted stays accepted at runtime)."""
    from castlint.suppressions import parse_suppressions

    cache: Dict[str, list] = {}
    kept, dropped = [], 0
    for f in findings:
        path = f.path
        if path.startswith("<"):
            kept.append(f)
            continue
        if path not in cache:
            try:
                with open(path, encoding="utf-8", errors="replace") as fh:
                    cache[path] = parse_suppressions(fh.read())
            except (OSError, SyntaxError, ValueError):
                cache[path] = []
        lines = set(range(f.start.line, f.end.line + 1))
        if any(sup.line in lines and (sup.covers(f.code) or sup.covers(RUNTIME_CODE)) for sup in cache[path]):
            dropped += 1
        else:
            kept.append(f)
    return kept, dropped


# -- rendering: castlint's reporters, given the runtime evidence as data -----------------------


def render(fmt: str, findings, errors, meta, quiet: bool = False, color: bool = False) -> str:
    """castlint.report's renderer for fmt: meta["trace"] (the run) and each finding's `runtime`
    are shown by text, json and sarif."""
    from castlint.report import render as report_render

    return report_render(fmt, findings, errors, meta, quiet=quiet, color=color)


# -- `castlint check --with-trace FILE` ------------------------------------------------------


class TraceFileError(ValueError):
    pass


def load_runtime(path: str) -> List[dict]:
    """The runtime objects of a `castlint trace --format json` report (or a raw tracer dump)."""
    try:
        data = json.loads(open(path, encoding="utf-8").read())
    except (OSError, ValueError) as exc:
        raise TraceFileError(f"--with-trace {path}: cannot read a castlint trace JSON report: {exc}") from exc
    if isinstance(data, dict) and "findings" in data:
        out = [f["runtime"] for f in data["findings"] if isinstance(f, dict) and isinstance(f.get("runtime"), dict)]
        if not out and data["findings"]:
            raise TraceFileError(f"--with-trace {path}: a castlint report, but not one of `castlint trace`")
        return out
    if isinstance(data, dict) and "sites" in data:  # a tracer's raw dump
        out = []
        for site in merge_sites([data]):
            evidence = _runtime_dict(site, data.get("threshold", 0), None)
            evidence["column"] = site["column"]
            out.append(evidence)
        return out
    raise TraceFileError(f"--with-trace {path}: not a `castlint trace --format json` report")


def with_trace(findings: Sequence[Finding], files: Sequence[str], trace_path: str, config=None) -> List[Finding]:
    """`castlint check --with-trace FILE`: merge_with_trace with the confirms of the run's config's
    extend-rules; TraceFileError, in words that never quote a table outside the tree, when the
    report or a table cannot be used."""
    from castlint.trace.table import TraceTableError, load_trace_tables

    try:
        confirms = load_trace_tables([str(p) for p in config.extend_rules]).confirms if config else None
        return merge_with_trace(findings, files, trace_path, confirms=confirms)
    except (TraceFileError, TraceTableError) as exc:
        from castlint.config import withheld_text

        raise TraceFileError(withheld_text(config, str(exc)) if config is not None else str(exc)) from None


def merge_with_trace(
    findings: Sequence[Finding], files: Sequence[str], trace_path: str, confirms: Optional[Sequence[str]] = None
) -> List[Finding]:
    """The static findings, each one a runtime site lies in marked "confirmed at runtime", plus a
    CL101 finding for each runtime site in the checked files that no static finding covers."""
    if confirms is None:
        from castlint.trace.table import load_trace_tables

        confirms = load_trace_tables().confirms
    by_file: Dict[str, List[dict]] = {}
    for evidence in load_runtime(trace_path):
        by_file.setdefault(_real(evidence["file"]), []).append(evidence)
    used = set()
    out: List[Finding] = []
    for f in findings:
        hits = [
            e for e in by_file.get(_real(f.path), ()) if f.code in confirms and f.start.line <= e["line"] <= f.end.line
        ]
        if hits:
            evidence = dict(hits[0], confirmed=True, static_code=f.code)
            used.update(id(h) for h in hits)
            out.append(confirm(f, evidence))
        else:
            out.append(f)
    checked = {_real(p): p for p in files}
    for real, in_file in sorted(by_file.items()):
        if real not in checked:
            continue
        for evidence in in_file:
            if id(evidence) not in used:
                out.append(new_finding(dict(evidence, confirmed=False, static_code=None), path=checked[real]))
    out.sort(key=lambda f: f.sort_key())
    return out
