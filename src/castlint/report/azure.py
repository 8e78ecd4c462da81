"""--output-format azure: Azure Pipelines logging commands (ruff's azure).

    ##vso[task.logissue type=error;sourcepath=backend.py;linenumber=21;columnnumber=20;code=CL001;]message

Values are escaped as the agent expects (`%` as `%AZP25`, `;` `]` CR LF as %3B %5D %0D
%0A), so a message or path from the checked code cannot end the command early."""

from __future__ import annotations

from castlint.models import Severity
from castlint.report.github import ci_path
from castlint.report.names import display

TYPE = {Severity.ERROR: "error", Severity.WARNING: "warning", Severity.NOTE: "warning"}
_ESCAPES = (("%", "%AZP25"), ("\r", "%0D"), ("\n", "%0A"), (";", "%3B"), ("]", "%5D"))


def escape(value: str) -> str:
    value = display(value)
    for raw, coded in _ESCAPES:
        value = value.replace(raw, coded)
    return value


def command(kind: str, message: str, **props) -> str:
    parts = "".join(f"{key}={escape(str(value))};" for key, value in props.items() if value is not None)
    return f"##vso[task.logissue type={kind};{parts}]{escape(message)}"


def render(findings, errors, meta) -> str:
    lines = [
        command(
            TYPE[f.severity],
            f.message,
            sourcepath=ci_path(f.path),
            linenumber=f.start.line,
            columnnumber=f.start.column,
            code=f.code,
        )
        for f in findings
    ]
    lines += [
        command("error", e.message, sourcepath=ci_path(e.path), linenumber=e.line or None, code=f"castlint/{e.kind}")
        for e in errors
    ]
    return "".join(line + "\n" for line in lines)
