"""--output-format concise: ruff's one line per finding, then a summary.

    backend.py:21:20: CL001 [*] whole-pool cast to q.dtype of ...
    Found 1 finding.
    [*] 1 fixable with `castlint fix`.

Errors (files that could not be checked) are lines too, `path:line:0: error: message`.
Paths and messages are written safe for a terminal (castlint.report.names.escaped)."""

from __future__ import annotations

from castlint.report.names import escaped


def mark(f) -> str:
    """ruff's fix marker: `[*] ` for a safe fix, nothing otherwise."""
    return "[*] " if f.fixable and f.fix.safety.value == "safe" else ""


def finding_line(f) -> str:
    return f"{escaped(f.path)}:{f.start.line}:{f.start.column}: {f.code} {mark(f)}{escaped(f.message)}"


def error_line(e) -> str:
    return f"{escaped(e.path)}:{e.line}:0: error: {escaped(e.message)}"


def summary(findings, errors) -> list:
    """ruff's closing lines: `All checks passed!` or `Found N findings.` and the fixable count."""
    if not findings and not errors:
        return ["All checks passed!"]
    n = len(findings)
    lines = [
        f"Found {n} finding{'s' if n != 1 else ''}"
        + (f" and {len(errors)} error{'s' if len(errors) != 1 else ''}" if errors else "")
        + "."
    ]
    fixable = sum(1 for f in findings if mark(f))
    if fixable:
        lines.append(f"[*] {fixable} fixable with `castlint fix`.")
    return lines


def render(findings, errors, meta) -> str:
    lines = [finding_line(f) for f in findings] + [error_line(e) for e in errors]
    if not meta.get("no_files"):
        lines += summary(findings, errors)
    return "\n".join(lines) + ("\n" if lines else "")
