"""The typer app: check, fix, rules, validate, bot.

`castlint --fix PATHS` and `castlint PATHS` work too (they mean `castlint check`),
as `ruff --fix` does.
"""
from __future__ import annotations

import os
import sys
from enum import Enum
from pathlib import Path
from typing import List, Optional

import typer
from rich.console import Console

from castlint import __version__

app = typer.Typer(
    name="castlint",
    help="Find and repair hidden whole-pool dtype casts in LLM inference engines.",
    add_completion=False,
    no_args_is_help=False,
    rich_markup_mode="rich",
    context_settings={"help_option_names": ["-h", "--help"]},
)
SUBCOMMANDS = {"check", "fix", "rules", "validate", "bot"}
EXIT_CLEAN, EXIT_FINDINGS, EXIT_ERROR = 0, 1, 2

err_console = Console(stderr=True, highlight=False)


class OutputFormat(str, Enum):
    text = "text"
    json = "json"
    sarif = "sarif"
    github = "github"
    rdjson = "rdjson"


def _version(value: bool):
    if value:
        typer.echo(f"castlint {__version__}")
        raise typer.Exit(EXIT_CLEAN)


@app.callback(invoke_without_command=True)
def root(
    ctx: typer.Context,
    version: bool = typer.Option(False, "--version", "-V", callback=_version, is_eager=True, help="Show the version and exit."),
):
    """castlint: static analysis and repair of hidden whole-pool dtype casts."""
    if ctx.invoked_subcommand is None:
        typer.echo(ctx.get_help())


def _split_codes(values: Optional[List[str]]) -> tuple:
    out = []
    for value in values or ():
        out.extend(part.strip().upper() for part in value.split(",") if part.strip())
    return tuple(out)


def _setup(paths, config_file, select, ignore):
    """Load config and tables; exit 2 with a clear message on bad input."""
    from castlint.config import ConfigError, load_config
    from castlint.tables import TableError, load_tables

    try:
        config = load_config(paths, Path(config_file) if config_file else None)
        if select:
            config.select = select
        if ignore:
            config.ignore = tuple(config.ignore) + ignore
        tables = load_tables(config.extend_rules)
        config.cost_model(tables)
    except (ConfigError, TableError) as exc:
        err_console.print(f"[bold red]error:[/] {exc}")
        raise typer.Exit(EXIT_ERROR)
    from castlint.codes import RULE_CODES  # not castlint.checks: that imports libcst (0.1 s)
    for code in tuple(config.select) + tuple(config.ignore):
        if not any(rc.startswith(code) for rc in RULE_CODES):
            err_console.print(f"[bold red]error:[/] unknown rule code {code!r} (see `castlint rules`)")
            raise typer.Exit(EXIT_ERROR)
    return config, tables


def _progress_run(files, tables, config, jobs, quiet, show):
    from castlint.engine import check_paths

    if not show or quiet or len(files) < 200 or not sys.stderr.isatty():
        return check_paths(files, tables, config, jobs=jobs)
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TimeElapsedColumn

    with Progress("[progress.description]{task.description}", BarColumn(), MofNCompleteColumn(),
                  TimeElapsedColumn(), console=err_console, transient=True) as progress:
        task = progress.add_task("checking", total=len(files))
        return check_paths(files, tables, config, jobs=jobs, progress=lambda n: progress.advance(task, n))


def _emit(text: str, output_file: Optional[str]):
    if output_file:
        Path(output_file).write_text(text, encoding="utf-8")
    else:
        sys.stdout.write(text)
        sys.stdout.flush()


def _render(fmt: OutputFormat, findings, errors, meta, quiet: bool) -> str:
    from castlint.report import FORMATS

    if fmt == OutputFormat.text:
        from castlint.report.text import render
        color = sys.stdout.isatty() and os.environ.get("NO_COLOR") is None
        return render(findings, errors, meta, color=color, quiet=quiet)
    renderer = FORMATS.get(fmt.value)
    if renderer is None:
        err_console.print(f"[bold red]error:[/] output format {fmt.value!r} is not available in this build")
        raise typer.Exit(EXIT_ERROR)
    return renderer(findings, errors, meta)


def _default_format(fmt: Optional[OutputFormat]) -> OutputFormat:
    if fmt is not None:
        return fmt
    if os.environ.get("GITHUB_ACTIONS") == "true":
        from castlint.report import FORMATS
        if "github" in FORMATS:
            return OutputFormat.github
    return OutputFormat.text


PATHS_ARG = typer.Argument(None, help="Files or directories to check (default: .)")
SELECT_OPT = typer.Option(None, "--select", help="Only these rule codes (comma-separated, prefixes allowed).")
IGNORE_OPT = typer.Option(None, "--ignore", help="Skip these rule codes.")
FORMAT_OPT = typer.Option(None, "--format", "-f", help="Output format (github is the default under GitHub Actions).")
CONFIG_OPT = typer.Option(None, "--config", help="Read config from this file instead of the nearest pyproject.toml/castlint.toml.")


@app.command()
def check(
    paths: Optional[List[str]] = PATHS_ARG,
    select: Optional[List[str]] = SELECT_OPT,
    ignore: Optional[List[str]] = IGNORE_OPT,
    fmt: Optional[OutputFormat] = FORMAT_OPT,
    exit_zero: bool = typer.Option(False, "--exit-zero", help="Exit 0 even when there are findings."),
    config_file: Optional[str] = CONFIG_OPT,
    quiet: bool = typer.Option(False, "--quiet", "-q", help="Only findings, no code frames or summary."),
    fix: bool = typer.Option(False, "--fix", help="Apply safe fixes, then report what is left."),
    unsafe_fixes: bool = typer.Option(False, "--unsafe-fixes", help="Also apply fixes marked unsafe."),
    diff: bool = typer.Option(False, "--diff", help="With --fix: print a unified diff and write nothing."),
    flashinfer_api: str = typer.Option("auto", "--flashinfer-api", help="Call form the fix emits: auto (what the target pins), positional, or keyword (FlashInfer >= 0.7)."),
    flashinfer_version: Optional[str] = typer.Option(None, "--flashinfer-version", help="FlashInfer the fixed code will run against (default: what the target sglang pins, from rules/sglang.toml)."),
    exit_non_zero_on_fix: bool = typer.Option(False, "--exit-non-zero-on-fix", help="Exit 1 when fix changed a file (pre-commit style)."),
    output_file: Optional[str] = typer.Option(None, "--output-file", "-o", help="Write the report to this file."),
    jobs: int = typer.Option(0, "--jobs", "-j", help="Parallel workers (default: core count)."),
    no_cache: bool = typer.Option(False, "--no-cache", help="Do not read or write .castlint_cache/."),
    diff_base: Optional[str] = typer.Option(None, "--diff-base", help="Only report findings on lines changed since this git revision."),
):
    """Check files for whole-pool casts (exit 0 clean, 1 findings, 2 errors)."""
    paths = paths or ["."]
    config, tables = _setup(paths, config_file, _split_codes(select), _split_codes(ignore))
    if no_cache:
        config.cache = False
    from castlint.discover import discover

    files, walk_errors = discover(paths, config)
    changed_files = 0
    fix_errors = []
    if fix or diff:
        from castlint.fixes import FixOptions, fix_files

        if flashinfer_api not in ("auto", "positional", "keyword"):
            err_console.print(f"[bold red]error:[/] --flashinfer-api must be auto, positional or keyword, got {flashinfer_api!r}")
            raise typer.Exit(EXIT_ERROR)
        options = FixOptions(unsafe=unsafe_fixes, dry_run=diff, flashinfer_api=flashinfer_api,
                             flashinfer_version=flashinfer_version)
        outcome = fix_files(files, tables, config, options)
        fix_errors = outcome.errors
        changed_files = len(outcome.changed)
        if diff:
            sys.stdout.write(outcome.diff_text)
            if not outcome.diff_text and not quiet:
                err_console.print("castlint: no fixes to apply")
            errors = sorted(list(walk_errors) + list(fix_errors), key=lambda e: (e.path, e.line))
            for e in errors:
                err_console.print(f"[bold]{e.path}:{e.line}:[/bold] [bold red]error[/] {e.message}")
            raise typer.Exit(EXIT_ERROR if errors else (EXIT_FINDINGS if outcome.diff_text else EXIT_CLEAN))
        if not quiet:
            for path in outcome.changed:
                err_console.print(f"[green]fixed[/green] {path}")
            for path, line, why in outcome.notes:
                err_console.print(f"[yellow]not fixed[/yellow] {path}:{line}: {why}")
    run = _progress_run(files, tables, config, jobs, quiet, show=True)
    findings = run.findings
    if diff_base:
        from castlint.gitdiff import GitDiffError, filter_to_changed_lines
        try:
            findings = filter_to_changed_lines(findings, diff_base)
        except GitDiffError as exc:
            from rich.markup import escape
            err_console.print(f"[bold red]error:[/] {escape(str(exc))}")
            raise typer.Exit(EXIT_ERROR)
    errors = sorted(list(walk_errors) + list(run.all_errors) + list(fix_errors), key=lambda e: (e.path, e.line))
    meta = {"files": len(files), "fixed_files": changed_files}
    _emit(_render(_default_format(fmt), findings, errors, meta, quiet), output_file)
    if errors:
        raise typer.Exit(EXIT_ERROR)
    if exit_non_zero_on_fix and changed_files:
        raise typer.Exit(EXIT_FINDINGS)
    if findings and not exit_zero:
        raise typer.Exit(EXIT_FINDINGS)
    raise typer.Exit(EXIT_CLEAN)


@app.command("fix")
def fix_command(
    paths: Optional[List[str]] = PATHS_ARG,
    select: Optional[List[str]] = SELECT_OPT,
    ignore: Optional[List[str]] = IGNORE_OPT,
    fmt: Optional[OutputFormat] = FORMAT_OPT,
    config_file: Optional[str] = CONFIG_OPT,
    quiet: bool = typer.Option(False, "--quiet", "-q"),
    unsafe_fixes: bool = typer.Option(False, "--unsafe-fixes", help="Also apply fixes marked unsafe."),
    diff: bool = typer.Option(False, "--diff", help="Print a unified diff and write nothing."),
    flashinfer_api: str = typer.Option("auto", "--flashinfer-api", help="auto | positional | keyword (FlashInfer >= 0.7 keyword form)."),
    flashinfer_version: Optional[str] = typer.Option(None, "--flashinfer-version", help="FlashInfer the fixed code will run against (default: the target sglang's pin)."),
    exit_non_zero_on_fix: bool = typer.Option(False, "--exit-non-zero-on-fix", help="Exit 1 when a file changed (pre-commit style)."),
    output_file: Optional[str] = typer.Option(None, "--output-file", "-o"),
    jobs: int = typer.Option(0, "--jobs", "-j"),
    no_cache: bool = typer.Option(False, "--no-cache"),
):
    """Apply fixes (same as `castlint check --fix`); --diff previews them."""
    check(paths=paths, select=select, ignore=ignore, fmt=fmt, exit_zero=False, config_file=config_file,
          quiet=quiet, fix=True, unsafe_fixes=unsafe_fixes, diff=diff, flashinfer_api=flashinfer_api,
          flashinfer_version=flashinfer_version, exit_non_zero_on_fix=exit_non_zero_on_fix, output_file=output_file, jobs=jobs, no_cache=no_cache,
          diff_base=None)


@app.command()
def rules(
    code: Optional[str] = typer.Argument(None, help="Show this rule's documentation."),
    fmt: Optional[OutputFormat] = typer.Option(None, "--format", "-f"),
):
    """List the rules, or document one."""
    from castlint.checks import ALL_RULES, RULES_BY_CODE

    console = Console(highlight=False)
    if code is None:
        if fmt == OutputFormat.json:
            import json
            typer.echo(json.dumps([{"code": r.code, "name": r.name, "summary": r.summary} for r in ALL_RULES], indent=2))
            return
        from rich.table import Table

        table = Table(title="castlint rules", show_lines=False)
        table.add_column("Code", style="bold")
        table.add_column("Name", style="cyan")
        table.add_column("Summary")
        table.add_column("Fix")
        for r in ALL_RULES:
            table.add_row(r.code, r.name, r.summary, _fix_word(r))
        console.print(table)
        return
    rule = RULES_BY_CODE.get(code.upper())
    if rule is None:
        for r in ALL_RULES:
            if r.name == code:
                rule = r
    if rule is None:
        err_console.print(f"[bold red]error:[/] no rule {code!r}; run `castlint rules` for the list")
        raise typer.Exit(EXIT_ERROR)
    from rich.markdown import Markdown

    console.print(Markdown(rule_markdown(rule)))


def _fix_word(rule) -> str:
    text = rule.fix_safety.lower()
    if text.startswith("no automatic fix"):
        return "—"
    return "safe/unsafe" if "unsafe" in text else "safe"


def rule_markdown(rule) -> str:
    examples = "\n\n".join(f"```python\n{src.rstrip()}\n```" for src, _ in rule.INVALID[:2])
    valid = "\n\n".join(f"```python\n{src.rstrip()}\n```" for src in rule.VALID[:2])
    return (
        f"# {rule.code} {rule.name}\n\n{rule.summary}.\n\n"
        f"## What it does\n\n{rule.what_it_does}\n\n"
        f"## Why it matters\n\n{rule.why_it_matters}\n\n"
        f"## Example\n\n```python\n{rule.example}\n```\n\n"
        f"Flagged:\n\n{examples}\n\nNot flagged:\n\n{valid}\n\n"
        f"## Fix safety\n\n{rule.fix_safety}\n"
    )


@app.command()
def validate(
    path: str = typer.Argument(..., help="An sglang tree or flashinfer_mla_backend.py (unpatched, or patched with --baseline)"),
    baseline: Optional[str] = typer.Option(None, "--baseline", help="The original file (or tree): PATH is then the already-patched one."),
    device: str = typer.Option("cuda", "--device", help="cuda: real FlashInfer kernels; cpu: pure-torch reference MLA, small shapes."),
    preset: Optional[str] = typer.Option(None, "--preset", help="Model preset from rules/models.toml (glm-5, deepseek-v3, deepseek-r1)."),
    tp: int = typer.Option(1, "--tp", help="Tensor-parallel size: local heads = preset heads / tp."),
    pool_tokens: Optional[int] = typer.Option(None, "--pool-tokens", help="KV pool size in tokens (default 495552; cpu 16384)."),
    batch_size: Optional[int] = typer.Option(None, "--batch-size", help="Requests in the batch (default 1; cpu 2)."),
    context_len: Optional[int] = typer.Option(None, "--context-len", help="Tokens per request (default 4096; cpu 256)."),
    extend_len: int = typer.Option(32, "--extend-len", help="New tokens per request in the extend (prefill) site."),
    atol: float = typer.Option(1e-2, "--atol", help="Absolute tolerance, patched vs original output."),
    rtol: float = typer.Option(1e-2, "--rtol", help="Relative tolerance, patched vs original output."),
    fmt: str = typer.Option("text", "--format", "-f", help="text (rich table) or json."),
    flashinfer_api: str = typer.Option("auto", "--flashinfer-api", help="Call form for the in-memory fix: auto | positional | keyword."),
    flashinfer_version: Optional[str] = typer.Option(None, "--flashinfer-version", help="FlashInfer version the in-memory fix targets (default: the sglang pin)."),
    site: Optional[List[str]] = typer.Option(None, "--site", help="Only these sites: decode, decode-cuda-graph, extend-paged."),
    iters: Optional[int] = typer.Option(None, "--iters", help="Timed iterations per path (default 50; cpu 3)."),
    warmup: Optional[int] = typer.Option(None, "--warmup", help="Warm-up calls before timing (default 5; cpu 1)."),
    mla_backend: Optional[str] = typer.Option(None, "--mla-backend", help="Force the MLA wrapper backend (fa2 | fa3) instead of the file's 'auto'."),
    emulate_flashinfer: str = typer.Option("0.7.2", "--emulate-flashinfer", help="--device cpu: the FlashInfer contract the reference follows."),
    layer_k_scale: float = typer.Option(2.0, "--layer-k-scale", help="k_scale the layer double carries (the pool never applies it)."),
    require_native: bool = typer.Option(False, "--require-native", help="Also fail unless the patched code took the native FP8 branch."),
    no_profile: bool = typer.Option(False, "--no-profile", help="Skip the torch.profiler kernel proof."),
    no_flush_l2: bool = typer.Option(False, "--no-flush-l2", help="Do not flush L2 between timed calls."),
    output_file: Optional[str] = typer.Option(None, "--output-file", "-o", help="Write the report to this file."),
    json_file: Optional[str] = typer.Option(None, "--json-file", help="Also write the JSON report to this file."),
):
    """Run the original and the fixed backend on a GPU: prove it equal and faster."""
    from castlint.validate.command import run_validate  # torch is imported only here

    raise typer.Exit(run_validate(
        path=path, baseline=baseline, device=device, preset=preset, tp=tp, pool_tokens=pool_tokens,
        batch_size=batch_size, context_len=context_len, extend_len=extend_len, atol=atol, rtol=rtol, fmt=fmt,
        flashinfer_api=flashinfer_api, flashinfer_version=flashinfer_version, sites=site, iters=iters,
        warmup=warmup, mla_backend=mla_backend, emulate_flashinfer=emulate_flashinfer,
        layer_k_scale=layer_k_scale, require_native=require_native, profile=not no_profile,
        flush_l2=not no_flush_l2, output_file=output_file, json_file=json_file))


@app.command()
def bot(
    paths: Optional[List[str]] = typer.Argument(None, help="Files or directories to check (default: the pull request's changed Python files)."),
    diff_base: Optional[str] = typer.Option(None, "--diff-base", help="Take the changed lines from git (diff since this revision) instead of the GitHub API."),
    dry_run: bool = typer.Option(False, "--dry-run", help="Print the comment it would post; post nothing."),
    exit_zero: bool = typer.Option(False, "--exit-zero", help="Exit 0 even when there are findings."),
    config_file: Optional[str] = CONFIG_OPT,
    review: bool = typer.Option(True, "--review/--no-review", help="Post GitHub suggestion blocks for fixable findings as review comments."),
    check_run: bool = typer.Option(True, "--check-run/--no-check-run", help="Create a check run with annotations (needs `checks: write`)."),
    always_comment: bool = typer.Option(False, "--always-comment", help="Comment even when clean and no earlier castlint comment exists."),
    max_wait: float = typer.Option(300.0, "--max-wait", help="Longest rate-limit wait (seconds) before giving up."),
):
    """Post the report to the pull request (inside a CI job): one comment, suggestions, a check run.

    Reads GITHUB_TOKEN, GITHUB_REPOSITORY, GITHUB_EVENT_PATH and GITHUB_API_URL. Only parses the PR's code.
    """
    from castlint.bot.command import run_bot

    raise typer.Exit(run_bot(paths=paths, diff_base=diff_base, dry_run=dry_run, exit_zero=exit_zero,
                             config_file=config_file, review=review, check_run=check_run,
                             always_comment=always_comment, max_wait=max_wait))


def main(argv: Optional[List[str]] = None):
    """Entry point: treat `castlint [--fix] PATHS` as `castlint check ...`."""
    args = list(sys.argv[1:] if argv is None else argv)
    root_only = {"--version", "-V", "--help", "-h"}
    if args and args[0] not in SUBCOMMANDS and not (set(args) & root_only and args[0] in root_only):
        args = ["check", *args]
    import signal

    def _terminate(signum, frame):  # SIGTERM unwinds like Ctrl-C, so writes clean up their temp files
        raise KeyboardInterrupt

    try:
        signal.signal(signal.SIGTERM, _terminate)
    except (ValueError, OSError):  # not the main thread
        pass
    try:
        app(args=args, prog_name="castlint", standalone_mode=True)
    except SystemExit as exc:
        code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else EXIT_ERROR)
        # click uses 2 for usage errors already; keep 0/1/2 only.
        sys.exit(code if code in (0, 1, 2) else EXIT_ERROR)
    except KeyboardInterrupt:
        err_console.print("castlint: interrupted")
        sys.exit(EXIT_ERROR)
