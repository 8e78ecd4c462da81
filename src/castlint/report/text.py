"""--format text: `path:line:col: CODE message`, a short code frame, a summary.

Bytes of a file name that are not UTF-8 are written as `\\xNN`, so the report can
be written to any stdout (castlint.report.names)."""

from __future__ import annotations

import io
from pathlib import Path

from rich.console import Console
from rich.markup import escape

from castlint.models import Severity, human_bytes, step_total
from castlint.report.names import escaped

STYLE = {Severity.ERROR: "bold red", Severity.WARNING: "yellow", Severity.NOTE: "cyan"}


def _frame(path: str, line: int, column: int, cache: dict) -> list:
    if path not in cache:  # (meta["sources"] seeds it: stdin has no file to read)
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
    cache: dict = {path: text.splitlines() for path, text in (meta.get("sources") or {}).items()}
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
        console.print(
            f"[bold]{escape(escaped(e.path))}:{e.line}:[/bold] [bold red]error[/] {escape(escaped(e.message))}",
            soft_wrap=True,
        )
    if not quiet:
        fixed_by_file = meta.get("fixed_by_file")
        if fixed_by_file:
            _print_fixes(console, fixed_by_file)
        _summary(console, findings, errors, meta)
    out = buffer.getvalue()
    trace = meta.get("trace")
    if trace and not quiet:  # `castlint trace`: what the run saw
        out += (
            f"castlint trace: {trace['sites']} runtime site{'s' if trace['sites'] != 1 else ''} "
            f"({trace['confirmed']} confirmed, {trace['new']} new) over {trace['ops_seen']:,} ops, "
            f"threshold {human_bytes(trace['threshold'])}.\n"
        )
    return out


def _print_fixes(console: Console, fixed_by_file: dict) -> None:
    """--show-fixes, in ruff's shape: per file, `N × CODE (name)`."""
    from castlint.codes import RULES_BY_CODE

    total = sum(sum(counts.values()) for counts in fixed_by_file.values())
    if not total:
        return
    console.print(f"Fixed {total} finding{'s' if total != 1 else ''}:", soft_wrap=True)
    for path in sorted(fixed_by_file):
        counts = fixed_by_file[path]
        if not sum(counts.values()):
            continue
        console.print(f"- {escape(escaped(path))}:", soft_wrap=True)
        for code in sorted(counts):
            if counts[code]:
                name = RULES_BY_CODE[code].name if code in RULES_BY_CODE else ""
                console.print(f"    {counts[code]} × {code} ({name})", soft_wrap=True)


def _summary(console: Console, findings, errors, meta) -> None:
    files = meta.get("files", 0)
    if meta.get("no_files"):
        return  # the CLI warned that there was nothing to check: "All checks passed" would mislead
    total = step_total(findings, meta.get("step_total_exclude", ()))
    fixable = sum(1 for f in findings if f.fixable and f.fix.safety.value == "safe")
    unsafe = sum(1 for f in findings if f.fixable and f.fix.safety.value != "safe")
    parts = [f"{files} file{'s' if files != 1 else ''} checked"]
    if errors:
        parts.append(f"[bold red]{len(errors)} error{'s' if len(errors) != 1 else ''}[/]")
    if fixable:
        parts.append(f"[green]{fixable} fixable[/] with `castlint fix` ([green]\\[*][/green])")
    if unsafe:
        parts.append(f"[yellow]{unsafe} more with --unsafe-fixes[/]")
    if total.bytes_per_step:
        step = f"hot-path casts move {human_bytes(total.bytes_per_step)} per decode step"
        if total.alternatives > 1:
            step += (
                f" in the costliest of {total.alternatives} backends ({escape(escaped(total.backend))}; "
                "a server runs one)"
            )
        parts.append(step)
    found = f"{len(findings)} finding{'s' if len(findings) != 1 else ''}"
    if "fixed" in meta:  # a fix ran: ruff's `Found N (M fixed, K remaining).`
        fixed = meta["fixed"]
        n = fixed + len(findings)
        if n == 0 and not errors:
            console.print("[green]All checks passed.[/green] " + ", ".join(parts), soft_wrap=True)
            return
        console.print(
            f"Found {n} finding{'s' if n != 1 else ''} ({fixed} fixed, {len(findings)} remaining).", soft_wrap=True
        )
        if findings or errors:
            console.print(", ".join(parts) + ".", soft_wrap=True)
        return
    if not findings and not errors:
        console.print("[green]All checks passed.[/green] " + ", ".join(parts), soft_wrap=True)
    else:
        console.print("Found " + ", ".join([found] + parts) + ".", soft_wrap=True)
