"""--format text: `path:line:col: CODE message`, a short code frame, a summary.

Bytes of a file name that are not UTF-8 are written as `\\xNN`, so the report can
be written to any stdout (castlint.report.names)."""
from __future__ import annotations

import io
from pathlib import Path

from rich.console import Console
from rich.markup import escape

from castlint.models import Severity, human_bytes
from castlint.report.names import escaped

STYLE = {Severity.ERROR: "bold red", Severity.WARNING: "yellow", Severity.NOTE: "cyan"}


def _frame(path: str, line: int, column: int, cache: dict) -> list:
    if path not in cache:
        try:
            cache[path] = Path(path).read_text(encoding="utf-8", errors="replace").splitlines()
        except OSError:
            cache[path] = []
    lines = cache[path]
    out = []
    for number in range(max(1, line - 1), min(len(lines), line + 1) + 1):
        marker = ">" if number == line else " "
        out.append(f"  {marker} {number:>5} | {lines[number - 1]}")
        if number == line:
            out.append(f"    {'':>5} | {' ' * (column - 1)}^")
    return out


def render(findings, errors, meta, color: bool = False, quiet: bool = False, width: int = 120) -> str:
    buffer = io.StringIO()
    console = Console(file=buffer, force_terminal=color, no_color=not color, width=width, highlight=False)
    cache: dict = {}
    for f in findings:
        fixable = ""
        if f.fixable:
            fixable = " [green]\\[*][/green]" if f.fix.safety.value == "safe" else " [yellow]\\[unsafe fix][/yellow]"
        console.print(
            f"[bold]{escape(escaped(f.path))}:{f.start.line}:{f.start.column}:[/bold] "
            f"[{STYLE[f.severity]}]{f.code}[/] {escape(escaped(f.message))}{fixable}",
            soft_wrap=True,
        )
        if not quiet:
            for frame_line in _frame(f.path, f.start.line, f.start.column, cache):
                console.print(f"[dim]{escape(escaped(frame_line))}[/dim]", soft_wrap=True)
            if f.unfixable_reason:
                console.print(f"  [dim]no fix: {escape(escaped(f.unfixable_reason))}[/dim]", soft_wrap=True)
    for e in errors:
        console.print(f"[bold]{escape(escaped(e.path))}:{e.line}:[/bold] [bold red]error[/] {escape(escaped(e.message))}",
                      soft_wrap=True)
    if not quiet or findings or errors:
        total_step = sum(f.cost.bytes_per_step for f in findings if f.cost and f.severity == Severity.ERROR)
        fixable = sum(1 for f in findings if f.fixable and f.fix.safety.value == "safe")
        unsafe = sum(1 for f in findings if f.fixable and f.fix.safety.value != "safe")
        parts = [f"{len(findings)} finding{'s' if len(findings) != 1 else ''}",
                 f"{meta.get('files', 0)} file{'s' if meta.get('files', 0) != 1 else ''} checked"]
        if errors:
            parts.append(f"[bold red]{len(errors)} error{'s' if len(errors) != 1 else ''}[/]")
        if fixable:
            parts.append(f"[green]{fixable} fixable[/] with `castlint fix` ([green]\\[*][/green])")
        if unsafe:
            parts.append(f"[yellow]{unsafe} more with --unsafe-fixes[/]")
        if total_step:
            parts.append(f"hot-path casts move {human_bytes(total_step)} per decode step")
        if not findings and not errors:
            console.print("[green]All checks passed.[/green] " + ", ".join(parts[1:]), soft_wrap=True)
        else:
            console.print("Found " + ", ".join(parts) + ".", soft_wrap=True)
    return buffer.getvalue()
