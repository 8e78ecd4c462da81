"""--format github: GitHub Actions workflow commands, one annotation per finding.

    ::error file=backend.py,line=6,col=13,endLine=6,endColumn=65,title=castlint (CL001)::message

error/warning/note findings become ::error/::warning/::notice. Values are
escaped as the Actions runner expects (`%`, CR and LF in the message; also `:`
and `,` in properties), so a message or path taken from the checked code can
never end the line early and inject a workflow command of its own. The chosen
default under GitHub Actions (GITHUB_ACTIONS=true with no --format).

GitHub shows at most 10 error and 10 warning annotations per step from workflow
commands; `castlint bot` also writes check-run annotations, which have no such cap.
"""

from __future__ import annotations

import os

from castlint.common.paths import display_path
from castlint.models import Severity, human_bytes, step_total
from castlint.report.names import display

COMMAND = {Severity.ERROR: "error", Severity.WARNING: "warning", Severity.NOTE: "notice"}


def escape_data(value: str) -> str:
    return value.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def escape_property(value: str) -> str:
    return escape_data(value).replace(":", "%3A").replace(",", "%2C")


def workspace_root() -> str:
    """The root report paths are relative to: GITHUB_WORKSPACE, else the current directory."""
    return os.environ.get("GITHUB_WORKSPACE") or os.getcwd()


def ci_path(path: str) -> str:
    """The path as GitHub expects it: relative to workspace_root(), with forward slashes.

    Paths outside it are returned absolute."""
    return display_path(path, workspace_root())


def command(kind: str, message: str, **props) -> str:
    order = ("file", "line", "col", "endLine", "endColumn", "title")
    parts = [f"{key}={escape_property(display(str(props[key])))}" for key in order if props.get(key) is not None]
    head = f"::{kind} " + ",".join(parts) if parts else f"::{kind}"
    return f"{head}::{escape_data(display(message))}"


def finding_message(f) -> str:
    text = f.message
    if f.fix is not None:
        text += f"\nFix ({f.fix.safety.value}): {f.fix.description}; run `castlint fix`"
        if f.fix.safety.value == "unsafe":
            text += " --unsafe-fixes"
    elif f.unfixable_reason:
        text += f"\nNo automatic fix: {f.unfixable_reason}"
    return text


def render(findings, errors, meta) -> str:
    lines = []
    for f in findings:
        lines.append(
            command(
                COMMAND[f.severity],
                finding_message(f),
                file=ci_path(f.path),
                line=f.start.line,
                col=f.start.column,
                endLine=f.end.line,
                endColumn=f.end.column,
                title=f"castlint ({f.code})",
            )
        )
    for e in errors:
        lines.append(
            command("error", e.message, file=ci_path(e.path), line=e.line or None, title=f"castlint ({e.kind} error)")
        )
    total = step_total(findings, meta.get("step_total_exclude", ()))
    summary = (
        f"castlint: {len(findings)} finding{'s' if len(findings) != 1 else ''}, "
        f"{len(errors)} error{'s' if len(errors) != 1 else ''}, "
        f"{meta.get('files', 0)} file{'s' if meta.get('files', 0) != 1 else ''} checked"
    )
    fixable = sum(1 for f in findings if f.fixable)
    if fixable:
        summary += f", {fixable} fixable with `castlint fix`"
    if total.bytes_per_step:
        summary += f"; hot-path casts move {human_bytes(total.bytes_per_step)} per decode step"
        if total.alternatives > 1:
            summary += f" in the costliest of {total.alternatives} backends ({total.backend})"
    # A plain line (not a command); `::` cannot start it.
    lines.append(summary + ".")
    return "\n".join(lines) + "\n"
