"""The typer app: check, fix, rules, validate, bot.

`castlint --fix PATHS` and `castlint PATHS` work too (they mean `castlint check`),
as `ruff --fix` does.
"""
from __future__ import annotations

import errno
import os
import sys
from dataclasses import dataclass, field
from enum import Enum
from pathlib import Path
from typing import TYPE_CHECKING, List, Optional

import typer
import typer.core
from rich.console import Console
from rich.text import Text

from castlint import __version__

if TYPE_CHECKING:
    import inspect

class PlainHelp(typer.core.TyperCommand):
    """Help as ruff prints it: plain text, options grouped in sections, wrapped to the
    terminal (never a truncated option name, at 80 columns too)."""

    def format_options(self, ctx, formatter) -> None:
        sections: dict = {}
        for param in self.get_params(ctx):
            record = param.get_help_record(ctx)
            if record is None:
                continue
            if param.param_type_name == "argument":
                title = "Arguments"
            else:
                title = getattr(param, "rich_help_panel", None) or OPTION_PANELS.get(param.name, "Options")
            sections.setdefault(title, []).append(record)
        order = ["Arguments", *PANEL_ORDER]
        for title in sorted(sections, key=lambda t: order.index(t) if t in order else len(order)):
            with formatter.section(title):
                formatter.write_dl(sections[title], col_max=34)


app = typer.Typer(
    name="castlint",
    help="Find and repair hidden whole-pool dtype casts in LLM inference engines.",
    add_completion=False,
    no_args_is_help=False,
    rich_markup_mode=None,  # plain help (PlainHelp), readable at 80 columns
    context_settings={"help_option_names": ["-h", "--help"], "max_content_width": 100},
)
SUBCOMMANDS = {"check", "fix", "rules", "rule", "validate", "bot", "trace", "server"}
from castlint.common.exit_codes import EXIT_CLEAN, EXIT_ERROR, EXIT_FINDINGS  # noqa: E402

err_console = Console(stderr=True, highlight=False, soft_wrap=True)  # never wrap: paths stay whole


class OutputFormat(str, Enum):
    """ruff's --output-format names (text is ruff's `full`; concise is one line per finding)."""

    text = "text"
    full = "full"
    concise = "concise"
    grouped = "grouped"
    json = "json"
    json_lines = "json-lines"
    junit = "junit"
    sarif = "sarif"
    github = "github"
    gitlab = "gitlab"
    pylint = "pylint"
    azure = "azure"
    rdjson = "rdjson"


class ColorMode(str, Enum):
    auto = "auto"
    always = "always"
    never = "never"


def _line(label: str, style: str, message: str, console: Optional[Console] = None) -> None:
    """`label: message` on stderr. The message is user-supplied text: never read as markup,
    never wrapped (paths and machine-read lines stay whole), control characters spelled out."""
    from castlint.report.names import escaped

    (console or err_console).print(Text.assemble((f"{label}:", style), " ", escaped(message)), soft_wrap=True)


def error(message: str) -> None:
    _line("error", "bold red", message)


def warning(message: str) -> None:
    _line("warning", "yellow", message)


def _fail(message: str) -> "typer.Exit":
    error(message)
    return typer.Exit(EXIT_ERROR)


def _set_color(mode: ColorMode) -> bool:
    """Apply --color to stderr; return whether stdout's text report is coloured."""
    global err_console
    if mode == ColorMode.always:
        err_console = Console(stderr=True, highlight=False, soft_wrap=True, force_terminal=True)
        return True
    if mode == ColorMode.never:
        err_console = Console(stderr=True, highlight=False, soft_wrap=True, no_color=True)
        return False
    err_console = Console(stderr=True, highlight=False, soft_wrap=True)
    return sys.stdout.isatty() and os.environ.get("NO_COLOR") is None


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


def _split(values: Optional[List[str]]) -> List[str]:
    return [part.strip() for value in values or () for part in value.split(",") if part.strip()]


def _resolver(flags, paths):
    """The per-file settings of a run (castlint.settings); exit 2 with one clear line on bad input.
    Every selector, from a flag or a file, goes through castlint.codes, and errors name the
    flag, or the file and key."""
    from castlint.settings import Resolver, SettingsRefused

    resolver = Resolver(flags, paths)
    try:
        resolver.primary()
    except SettingsRefused as exc:
        raise _fail(str(exc))
    return resolver


def _setup(paths, config_file, select=None, ignore=None, extend_select=None, exclude=None, extend_exclude=None,
           respect_gitignore=None):
    """(Config, Tables) of the first path with the flags applied (one config for the run)."""
    from castlint.settings import CommandLine

    flags = CommandLine(select=select, ignore=ignore, extend_select=extend_select, exclude=exclude,
                        extend_exclude=extend_exclude, respect_gitignore=respect_gitignore, config_file=config_file)
    return _resolver(flags, paths).primary()


def _progress_run(files, tables, config, jobs, quiet, show=True, fixer=None, named=()):
    from castlint.engine import check_paths

    if not show or quiet or len(files) < 200 or not sys.stderr.isatty():
        return check_paths(files, tables, config, jobs=jobs, fixer=fixer, named=named)
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TimeElapsedColumn

    with Progress("[progress.description]{task.description}", BarColumn(), MofNCompleteColumn(),
                  TimeElapsedColumn(), console=err_console, transient=True) as progress:
        task = progress.add_task("checking", total=len(files))
        return check_paths(files, tables, config, jobs=jobs, progress=lambda n: progress.advance(task, n),
                           fixer=fixer, named=named)


def _emit(text: str, output_file: Optional[str]):
    if output_file:
        try:
            Path(output_file).write_text(text, encoding="utf-8")
        except OSError as exc:
            raise _fail(f"--output-file {output_file}: cannot write: {exc.strerror or exc}")
    else:
        sys.stdout.write(text)
        sys.stdout.flush()


def _render(fmt: OutputFormat, findings, errors, meta, quiet: bool, color: bool, *,
            config=None, tables=None) -> str:
    """The report in fmt. With the run's config and tables, the formats that show fixes'
    concrete edits (sarif, rdjson) get them, computed once here, as meta["fix_suggestions"]."""
    from castlint.report import FORMATS, SHOWS_FIX_SUGGESTIONS

    if fmt in (OutputFormat.text, OutputFormat.full):
        from castlint.report.text import render
        return render(findings, errors, meta, color=color, quiet=quiet)
    renderer = FORMATS.get(fmt.value)
    if renderer is None:
        raise _fail(f"output format {fmt.value!r} is not available in this build")
    if fmt.value in SHOWS_FIX_SUGGESTIONS and config is not None and tables is not None:
        from castlint.fixes import safe_suggestions

        meta = dict(meta, fix_suggestions=safe_suggestions(findings, tables, config))
    return renderer(findings, errors, meta)


def _default_format(fmt: Optional[OutputFormat]) -> OutputFormat:
    if fmt is not None:
        return fmt
    if os.environ.get("GITHUB_ACTIONS") == "true":
        from castlint.report import FORMATS
        if "github" in FORMATS:
            return OutputFormat.github
    return OutputFormat.text


def _show_settings(config, tables, fmt: OutputFormat, flags=None) -> str:
    """--show-settings: the configuration in force, after the command line."""
    import json

    from castlint.codes import enabled_codes

    model = config.cost_model(tables)
    settings = {
        "config_file": str(config.path) if config.path else None,
        "config_overrides": list(flags.override_texts) if flags is not None else [],  # --config KEY=VALUE
        "isolated": bool(flags.isolated) if flags is not None else False,
        "root": str(config.root),
        # a default select is not --select ALL (which adds the opt-in rules): say which it is
        "select": list(config.select) if config.select else "default",
        "select_source": getattr(config, "select_source", "default"),
        "ignore": list(config.ignore),
        "enabled_rules": list(enabled_codes(config.select, config.ignore)),
        "exclude": list(config.exclude),
        "respect_gitignore": config.respect_gitignore,
        "ignore_noqa": getattr(config, "ignore_noqa", False),
        "per_file_ignores": {k: list(v) for k, v in config.per_file_ignores.items()},
        "extend_rules": [str(p) for p in config.extend_rules],
        "rule_tables": list(tables.sources),
        "cache": config.cache,
        "jobs": config.jobs,
        "max_file_size": config.max_file_size,
        "file_timeout": config.file_timeout,
        "max_file_memory": config.max_file_memory,
        "model": {"name": model.name, "layers": model.layers, "pool_tokens": model.pool_tokens,
                  "kv_lora_rank": model.kv_lora_rank, "rope_dim": model.rope_dim, "kv_dtype": model.kv_dtype,
                  "compute_dtype": model.compute_dtype},
    }
    if fmt == OutputFormat.json:
        return json.dumps(settings, indent=2) + "\n"
    lines = []
    for key, value in settings.items():
        if isinstance(value, dict) and key == "model":
            lines += [f"model.{k} = {json.dumps(v)}" for k, v in value.items()]
        else:
            lines.append(f"{key} = {json.dumps(value)}")
    return "\n".join(lines) + "\n"


def _statistics(findings, fmt: OutputFormat, tables) -> str:
    """--statistics: one line per rule, as ruff prints it (count, code, [*] when fixable, name)."""
    import json

    from castlint.codes import RULES_BY_CODE
    from castlint.models import human_bytes, step_total

    rows = {}
    for f in findings:
        row = rows.setdefault(f.code, {"code": f.code, "name": f.name, "count": 0, "safe": 0, "unsafe": 0})
        row["count"] += 1
        if f.fixable:
            row["safe" if f.fix.safety.value == "safe" else "unsafe"] += 1
    ordered = sorted(rows.values(), key=lambda r: (-r["count"], r["code"]))
    total = step_total(findings, tables.decode_step_exclude_words)
    if fmt == OutputFormat.json:
        payload = [{"code": r["code"], "name": r["name"], "count": r["count"], "fixable": r["safe"] == r["count"],
                    "fixable_count": r["safe"], "unsafe_fixable_count": r["unsafe"]} for r in ordered]
        return json.dumps(payload, indent=2) + "\n"
    width = max((len(str(r["count"])) for r in ordered), default=1)
    lines = []
    for r in ordered:
        # [*]: `castlint fix` fixes every one; [-]: some (or only with --unsafe-fixes)
        mark = "[*]" if r["safe"] == r["count"] else ("[-]" if r["safe"] or r["unsafe"] else "   ")
        name = RULES_BY_CODE[r["code"]].name if r["code"] in RULES_BY_CODE else r["name"]
        lines.append(f"{r['count']:>{width}}\t{r['code']}\t{mark} {name}")
    if total.backends:
        lines.append("")
        lines.append("per decode step, by backend (a server runs one):")
        from castlint.report.names import escaped

        lines += [f"{human_bytes(n):>10}\t{escaped(name)}" for name, n in total.backends]
    return "\n".join(lines) + ("\n" if lines else "")


def _read_stdin(limit: Optional[int] = None) -> bytes:
    """stdin's bytes; at most limit + 1 of them (max-file-size: the caller refuses more)."""
    if sys.stdin is None:
        return b""
    stream = getattr(sys.stdin, "buffer", None)
    if stream is not None:
        if limit is None:
            return stream.read()
        chunks, left = [], limit + 1
        while left > 0:
            chunk = stream.read(min(left, 1 << 20))
            if not chunk:
                break
            chunks.append(chunk)
            left -= len(chunk)
        return b"".join(chunks)
    data = sys.stdin.read() if limit is None else sys.stdin.read(limit + 1)
    return data.encode("utf-8", "surrogateescape") if isinstance(data, str) else data


def _write_stdout_bytes(data: bytes) -> None:
    stream = getattr(sys.stdout, "buffer", None)
    if stream is not None:
        sys.stdout.flush()
        stream.write(data)
        stream.flush()
    else:
        sys.stdout.write(data.decode("utf-8", "replace"))
        sys.stdout.flush()


PATHS_ARG = typer.Argument(None, metavar="[PATHS]...", help="Files or directories to check (default: .); `-` reads one file from stdin.")
SELECT_OPT = typer.Option(None, "--select", metavar="CODE,...", help="Only these rule codes (comma-separated, prefixes allowed; ALL for every rule).")
EXTEND_SELECT_OPT = typer.Option(None, "--extend-select", metavar="CODE,...", help="Rule codes to enable on top of select.")
IGNORE_OPT = typer.Option(None, "--ignore", metavar="CODE,...", help="Skip these rule codes.")
FORMAT_OPT = typer.Option(None, "--format", "-f", "--output-format", metavar="FORMAT",
                          help="text (full), concise, grouped, json, json-lines, junit, sarif, github, gitlab, "
                               "pylint, azure or rdjson (github is the default under GitHub Actions); "
                               "--output-format is ruff's name.")
CONFIG_OPT = typer.Option(None, "--config", help="Read config from this file instead of the nearest pyproject.toml/castlint.toml.")
# rich help panels, as ruff groups its options (the help stays readable at 80 columns)
RULE_PANEL, FIX_PANEL, FILE_PANEL, REPORT_PANEL, RUN_PANEL = (
    "Rule selection", "Fixes", "File selection", "Reporting", "Run")
PANEL_ORDER = [RULE_PANEL, FILE_PANEL, FIX_PANEL, REPORT_PANEL, RUN_PANEL, "Options"]
OPTION_PANELS = {  # check's (and fix's) options without a panel of their own
    "select": RULE_PANEL, "extend_select": RULE_PANEL, "ignore": RULE_PANEL,
    "fmt": REPORT_PANEL, "exit_zero": REPORT_PANEL, "quiet": REPORT_PANEL, "output_file": REPORT_PANEL,
    "statistics": REPORT_PANEL, "show_fixes": FIX_PANEL, "color": REPORT_PANEL, "show_files": FILE_PANEL,
    "show_settings": RUN_PANEL, "unsafe_fixes": FIX_PANEL, "flashinfer_api": FIX_PANEL,
    "flashinfer_version": FIX_PANEL, "exit_non_zero_on_fix": FIX_PANEL, "follow_symlinks_outside": FIX_PANEL,
    "exclude": FILE_PANEL, "extend_exclude": FILE_PANEL, "respect_gitignore": FILE_PANEL,
    "stdin_filename": FILE_PANEL, "jobs": RUN_PANEL, "no_cache": RUN_PANEL, "fix": FIX_PANEL,
    "fix_only": FIX_PANEL, "diff": FIX_PANEL, "profile": FIX_PANEL, "pr_body": FIX_PANEL, "patch": FIX_PANEL,
    "validate_json": FIX_PANEL,
}
CHECK_CONFIG_OPT = typer.Option(None, "--config", metavar="FILE|KEY=VALUE", help="A config file to use instead of each file's nearest pyproject.toml/castlint.toml, or a `KEY = VALUE` TOML setting over it (repeatable).", rich_help_panel=RUN_PANEL)
FORCE_EXCLUDE_OPT = typer.Option(False, "--force-exclude", help="Apply exclude and .gitignore to paths named on the command line too (what the pre-commit hook passes).", rich_help_panel=FILE_PANEL)
PER_FILE_IGNORES_OPT = typer.Option(None, "--per-file-ignores", metavar="GLOB:CODES", help="GLOB:CODE[,CODE]: ignore these codes in matching files, replacing the configured per-file-ignores (repeatable).", rich_help_panel=RULE_PANEL)
EXTEND_PER_FILE_IGNORES_OPT = typer.Option(None, "--extend-per-file-ignores", metavar="GLOB:CODES", help="GLOB:CODE[,CODE]: as --per-file-ignores, on top of the configured ones.", rich_help_panel=RULE_PANEL)
IGNORE_NOQA_OPT = typer.Option(False, "--ignore-noqa", help="Ignore every suppression comment (line and file level).", rich_help_panel=RULE_PANEL)
ISOLATED_OPT = typer.Option(False, "--isolated", help="Read no config file (the defaults and the flags only).", rich_help_panel=RUN_PANEL)
WATCH_OPT = typer.Option(False, "--watch", "-w", help="Check again whenever a file changes (Ctrl-C ends it).", rich_help_panel=RUN_PANEL)
QUIET_OPT = typer.Option(False, "--quiet", "-q", help="Only the findings: no code frames, no summary.")
EXCLUDE_OPT = typer.Option(None, "--exclude", metavar="GLOB,...", help="Glob patterns to skip, replacing the configured exclude (the defaults stay).")
EXTEND_EXCLUDE_OPT = typer.Option(None, "--extend-exclude", metavar="GLOB,...", help="Glob patterns to skip, on top of exclude.")
GITIGNORE_OPT = typer.Option(None, "--respect-gitignore/--no-respect-gitignore",
                             help="Skip what .gitignore files ignore (default: on, or respect-gitignore in the config).")
COLOR_OPT = typer.Option(ColorMode.auto, "--color", help="Colour: auto (on a terminal, unless NO_COLOR is set), always, never.")
STDIN_OPT = typer.Option(None, "--stdin-filename", metavar="PATH", help="Read the source from stdin and report it under this name (config, messages).")
SHOW_FILES_OPT = typer.Option(False, "--show-files", help="List the files that would be checked, and exit.")
SHOW_SETTINGS_OPT = typer.Option(False, "--show-settings", help="Print the settings in force (config plus flags), and exit.")
STATISTICS_OPT = typer.Option(False, "--statistics", help="Count the findings per rule instead of listing them.")
SHOW_FIXES_OPT = typer.Option(False, "--show-fixes", help="With a fix: list what was fixed, per file and rule.")
JOBS_OPT = typer.Option(0, "--jobs", "-j", help="Parallel workers (default: core count).")
NO_CACHE_OPT = typer.Option(False, "--no-cache", help="Do not read or write .castlint_cache/.")
OUTPUT_FILE_OPT = typer.Option(None, "--output-file", "-o", metavar="FILE", help="Write the report to this file.")
UNSAFE_OPT = typer.Option(False, "--unsafe-fixes", help="Also apply fixes marked unsafe.")
FI_API_OPT = typer.Option("auto", "--flashinfer-api", help="Call form the fix emits: auto (what the target pins), positional, or keyword (FlashInfer >= 0.7).")
FI_VERSION_OPT = typer.Option(None, "--flashinfer-version", help="FlashInfer the fixed code will run against (default: the pin the tree states, else rules/sglang.toml).")
PROFILE_OPT = typer.Option("full", "--profile", metavar="full|minimal", help="What the MLA fix rewrites: full (every read, the default) or minimal (the decode native read only).")
PR_BODY_OPT = typer.Option(None, "--pr-body", metavar="FILE", help="With a fix: write a Markdown pull-request description of the change to FILE (with --diff too; the tree is then left alone).")
PATCH_OPT = typer.Option(None, "--patch", metavar="FILE", help="With a fix: write the change as a `git format-patch` file, paths from the tree's root (git apply / git am / patch -p1).")
VALIDATE_JSON_OPT = typer.Option(None, "--validate-json", metavar="FILE", help="With --pr-body: a `castlint validate --json-file` (or --sweep) report whose results the description shows.")
EXIT_ON_FIX_OPT = typer.Option(False, "--exit-non-zero-on-fix", help="Exit 1 when a fix changed a file (pre-commit style).")
FOLLOW_OPT = typer.Option(False, "--follow-symlinks-outside", help="Let a fix (or --add-noqa) write through a symlink whose target is outside the checked paths (default: such files are not written).")


WATCH_INTERVAL_S = 0.3  # how often --watch looks at the files' mtimes


@app.command(cls=PlainHelp, short_help="Check files (exit 0 clean, 1 findings, 2 errors).")
def check(
    paths: Optional[List[str]] = PATHS_ARG,
    select: Optional[List[str]] = SELECT_OPT,
    extend_select: Optional[List[str]] = EXTEND_SELECT_OPT,
    ignore: Optional[List[str]] = IGNORE_OPT,
    fmt: Optional[OutputFormat] = FORMAT_OPT,
    exit_zero: bool = typer.Option(False, "--exit-zero", help="Exit 0 even when there are findings."),
    config_file: Optional[List[str]] = CHECK_CONFIG_OPT,
    quiet: bool = QUIET_OPT,
    fix: bool = typer.Option(False, "--fix", help="Apply safe fixes, then report what is left.", rich_help_panel=FIX_PANEL),
    fix_only: bool = typer.Option(False, "--fix-only", help="Apply fixes; do not report (or exit 1 for) what is left.", rich_help_panel=FIX_PANEL),
    unsafe_fixes: bool = UNSAFE_OPT,
    diff: bool = typer.Option(False, "--diff", help="With --fix: print a unified diff and write nothing.", rich_help_panel=FIX_PANEL),
    show_fixes: bool = SHOW_FIXES_OPT,
    flashinfer_api: str = FI_API_OPT,
    flashinfer_version: Optional[str] = FI_VERSION_OPT,
    profile: str = PROFILE_OPT,
    pr_body: Optional[str] = PR_BODY_OPT,
    patch: Optional[str] = PATCH_OPT,
    validate_json: Optional[str] = VALIDATE_JSON_OPT,
    exit_non_zero_on_fix: bool = EXIT_ON_FIX_OPT,
    output_file: Optional[str] = OUTPUT_FILE_OPT,
    jobs: int = JOBS_OPT,
    no_cache: bool = NO_CACHE_OPT,
    diff_base: Optional[str] = typer.Option(None, "--diff-base", help="Only report findings on lines changed since this git revision.", rich_help_panel=REPORT_PANEL),
    with_trace: Optional[str] = typer.Option(None, "--with-trace", help="A `castlint trace --format json` report: mark the findings it confirms at runtime, add its new runtime findings (CL101) in these files.", rich_help_panel=REPORT_PANEL),
    statistics: bool = STATISTICS_OPT,
    add_noqa: bool = typer.Option(False, "--add-noqa", help="Add a `# noqa: CODE` comment for every current finding (adopt castlint on a big tree); --add-noqa=REASON adds the reason after the codes.", rich_help_panel=FIX_PANEL),
    noqa_reason: Optional[str] = typer.Option(None, "--noqa-reason", hidden=True),
    exclude: Optional[List[str]] = EXCLUDE_OPT,
    extend_exclude: Optional[List[str]] = EXTEND_EXCLUDE_OPT,
    respect_gitignore: Optional[bool] = GITIGNORE_OPT,
    force_exclude: bool = FORCE_EXCLUDE_OPT,
    per_file_ignores: Optional[List[str]] = PER_FILE_IGNORES_OPT,
    extend_per_file_ignores: Optional[List[str]] = EXTEND_PER_FILE_IGNORES_OPT,
    ignore_noqa: bool = IGNORE_NOQA_OPT,
    isolated: bool = ISOLATED_OPT,
    watch: bool = WATCH_OPT,
    show_files: bool = SHOW_FILES_OPT,
    show_settings: bool = SHOW_SETTINGS_OPT,
    color: ColorMode = COLOR_OPT,
    stdin_filename: Optional[str] = STDIN_OPT,
    follow_symlinks_outside: bool = FOLLOW_OPT,
):
    """Check files for whole-pool casts (exit 0 clean, 1 findings, 2 errors)."""
    colored = _set_color(color)
    fix = fix or fix_only
    stdin = paths == ["-"] or (stdin_filename is not None and not paths)
    _refuse_conflicting_flags(paths, stdin, fix, diff, add_noqa, flashinfer_api, profile)
    pr_request, pr_report = _pr_request(pr_body, patch, validate_json, fix or diff, stdin, watch)
    if watch and (stdin or add_noqa or show_files or show_settings):
        raise _fail("--watch re-checks files on disk: it cannot be combined with stdin, --add-noqa, --show-files "
                    "or --show-settings")
    if isolated and config_file and any("=" not in value for value in config_file):
        raise _fail("--isolated reads no config file: it cannot be combined with --config FILE "
                    "(--config KEY=VALUE is fine)")
    flags = _command_line(config_file, select, ignore, extend_select, exclude, extend_exclude, respect_gitignore,
                          per_file_ignores, extend_per_file_ignores, isolated, ignore_noqa, no_cache)
    config_paths = [stdin_filename or "."] if stdin else (paths or ["."])
    resolver = _resolver(flags, config_paths)
    config, tables = resolver.primary()
    fmt = _default_format(fmt)
    if show_settings:
        _emit(_show_settings(config, tables, fmt, flags), output_file)
        raise typer.Exit(EXIT_CLEAN)
    if stdin:
        raise typer.Exit(_check_stdin(stdin_filename or "-", config, tables, fmt, quiet, colored, fix, diff,
                                      unsafe_fixes, flashinfer_api, flashinfer_version, exit_zero, fix_only,
                                      statistics, output_file, profile))
    paths = paths or ["."]

    runs = [resolver]

    def once() -> int:
        resolver = runs[-1]
        runs.append(None)
        if resolver is None:  # --watch, again: the configs are read afresh (one may have changed)
            resolver = _resolver(flags, config_paths)
        files, walk_errors = _discover_files(paths, resolver, show_files, output_file, force_exclude)
        groups = _groups(resolver, files)
        if add_noqa:
            return _add_noqa(groups, walk_errors, jobs, quiet, paths, follow_symlinks_outside, noqa_reason)
        fixing = None
        if fix or diff:
            from castlint.fixes import FixOptions

            fixing = FixOptions(unsafe=unsafe_fixes, dry_run=diff, flashinfer_api=flashinfer_api,
                                flashinfer_version=flashinfer_version, profile=profile)
        outcome = _check_groups(groups, walk_errors, jobs, quiet, fixing, paths, follow_symlinks_outside)
        if pr_request is not None:
            _write_pr(pr_request, pr_report, outcome, resolver, fixing, paths, quiet)
        if fixing is not None and fixing.dry_run:
            _exit_with_diff(outcome.diff_text, walk_errors, outcome.fix_errors, quiet, exit_zero)
        config, tables = resolver.primary()
        outcome.findings = _filter_findings(outcome.findings, files, diff_base, with_trace, config)
        _report(outcome, fmt, tables, config, fix, fix_only, show_fixes, statistics, quiet, colored, output_file)
        return _exit_code(outcome, exit_zero, fix_only, exit_non_zero_on_fix)

    if watch:
        raise typer.Exit(_watch(once, paths))
    raise typer.Exit(once())


def _command_line(config_values, select, ignore, extend_select, exclude, extend_exclude, respect_gitignore,
                  per_file_ignores, extend_per_file_ignores, isolated, ignore_noqa, no_cache):
    """The flags that change settings, as castlint.settings.CommandLine (exit 2 on a bad --config)."""
    from castlint.settings import CommandLine, SettingsRefused, split_config_flags

    try:
        config_file, overrides, texts = split_config_flags(config_values)
    except SettingsRefused as exc:
        raise _fail(str(exc))
    return CommandLine(select=select, ignore=ignore, extend_select=extend_select, exclude=exclude,
                       extend_exclude=extend_exclude, respect_gitignore=respect_gitignore,
                       per_file_ignores=per_file_ignores, extend_per_file_ignores=extend_per_file_ignores,
                       config_file=config_file, overrides=overrides, override_texts=texts, isolated=isolated,
                       ignore_noqa=ignore_noqa, no_cache=no_cache)


def _groups(resolver, files) -> list:
    """[(config, tables, files)]: each file with its nearest config (one group when they share one)."""
    from castlint.settings import SettingsRefused

    try:
        groups = resolver.groups(files)
    except SettingsRefused as exc:
        raise _fail(str(exc))
    if not groups:
        config, tables = resolver.primary()
        groups = [(config, tables, [])]
    return groups


def _watch(once, paths) -> int:
    """--watch: check, then check again whenever a Python file or a config under paths changes;
    Ctrl-C (or SIGTERM) ends it, exit 0."""
    import time

    import click

    from castlint.common import interrupt

    try:
        while True:
            try:
                code = once()
            except click.exceptions.Exit as exc:
                code = exc.exit_code
            sys.stdout.flush()
            stamp = time.strftime("%H:%M:%S")
            _last_words(f"[{stamp}] {'no findings' if code == EXIT_CLEAN else 'findings' if code == EXIT_FINDINGS else 'errors'}"
                        ". Watching for file changes.")
            before = _snapshot(paths)
            while _snapshot(paths) == before:
                time.sleep(WATCH_INTERVAL_S)
            _last_words(f"[{time.strftime('%H:%M:%S')}] File change detected...")
    except (interrupt.Interrupted, KeyboardInterrupt):
        return EXIT_CLEAN


def _snapshot(paths) -> dict:
    """(mtime, size) of every Python file and config file under paths: what --watch compares."""
    state = {}
    wanted = (".py", ".pyi", "pyproject.toml", "castlint.toml", ".gitignore")
    for top in paths:
        if os.path.isfile(top):
            candidates = [top]
        else:
            candidates = []
            for folder, dirs, names in os.walk(top):
                dirs[:] = [d for d in dirs if not d.startswith(".") and d != "__pycache__"]
                candidates += [os.path.join(folder, n) for n in names if n.endswith(wanted)]
        folder = os.path.abspath(top if os.path.isdir(top) else os.path.dirname(top) or ".")
        while True:  # the configs above it: creating, editing or deleting one is a change too
            candidates += [os.path.join(folder, "castlint.toml"), os.path.join(folder, "pyproject.toml")]
            parent = os.path.dirname(folder)
            if parent == folder:
                break
            folder = parent
        for path in candidates:
            try:
                st = os.stat(path)
            except OSError:
                state[path] = None
                continue
            state[path] = (st.st_mtime_ns, st.st_size)
    return state


def _print_errors(errors) -> None:
    """One `error: path:line: message` line on stderr per error."""
    for e in errors:
        error(f"{e.path}:{e.line}: {e.message}")


def _refuse_conflicting_flags(paths, stdin: bool, fix: bool, diff: bool, add_noqa: bool, flashinfer_api: str,
                              profile: str = "full") -> None:
    """Exit 2 for a command line whose flags contradict each other."""
    if paths and "-" in paths and not stdin:
        raise _fail("`-` (stdin) cannot be mixed with other paths")
    if add_noqa and (fix or diff):
        raise _fail("--add-noqa cannot be combined with --fix, --fix-only or --diff")
    if flashinfer_api not in ("auto", "positional", "keyword"):
        raise _fail(f"--flashinfer-api must be auto, positional or keyword, got {flashinfer_api!r}")
    _refuse_profile(profile)


def _refuse_profile(profile: str) -> None:
    """Exit 2 unless --profile names one of castlint.fixes.base.PROFILE_CHOICES."""
    try:
        from castlint.fixes.base import PROFILE_CHOICES
    except ImportError:  # no libcst (only validate installed): no in-memory fix runs, validate says so
        return
    if profile not in PROFILE_CHOICES:
        raise _fail(f"--profile must be {' or '.join(PROFILE_CHOICES)}, got {profile!r}")


def _pr_request(pr_body: Optional[str], patch: Optional[str], validate_json: Optional[str], fixing: bool,
                stdin: bool, watch: bool):
    """(castlint.pr.PrRequest, the --validate-json report) for --pr-body / --patch, checked before
    anything is fixed (exit 2 on a file that cannot be written or read); (None, None) without them."""
    if not (pr_body or patch or validate_json):
        return None, None
    if not fixing:
        raise _fail("--pr-body, --patch and --validate-json describe a fix: use them with --fix or --diff "
                    "(or `castlint fix`)")
    if stdin:
        raise _fail("--pr-body and --patch need files on disk (a tree), not stdin")
    if watch:
        raise _fail("--pr-body and --patch describe one fix: they cannot be combined with --watch")
    from castlint.pr import PrError, PrRequest, prepare

    request = PrRequest(body=pr_body, patch=patch, validate_json=validate_json)
    try:
        report = prepare(request)
    except PrError as exc:
        raise _fail(str(exc))
    return request, report


def _write_pr(request, report, outcome, resolver, options, paths, quiet: bool) -> None:
    """Write --pr-body / --patch for what the run changed (nothing when it changed nothing)."""
    from castlint.pr import PrError, build_context, write_outputs

    if not outcome.changes:
        if not quiet:
            warning("the fix changed nothing: no --pr-body or --patch written")
        return
    config, tables = resolver.primary()
    ctx = build_context(outcome.changes, outcome.fixes, tables=tables, cost_model=config.cost_model(tables),
                        options=options, paths=paths, report=report, validate_name=request.validate_json or "",
                        version=__version__)
    try:
        written = write_outputs(request, ctx)
    except PrError as exc:
        raise _fail(str(exc))
    if not quiet:
        for path in written:
            _line("wrote", "green", path)


def _discover_files(paths: List[str], resolver, show_files: bool, output_file: Optional[str],
                    force_exclude: bool = False):
    """(the files to check, the paths that could not be walked); --show-files lists them and exits.
    A named path is walked with its own nearest config's exclude and respect-gitignore."""
    from castlint.discover import discover
    from castlint.settings import SettingsRefused

    skipped: List[str] = []
    config, _ = resolver.primary()
    try:
        files, walk_errors = discover(paths, config, warn=warning, force_exclude=force_exclude, skipped=skipped,
                                      config_for=lambda path: resolver.for_path(path)[0])
    except SettingsRefused as exc:
        raise _fail(str(exc))
    for line in skipped:
        warning(line)
    if show_files:
        from castlint.report.names import escaped

        _emit("".join(f"{escaped(path)}\n" for path in files), output_file)
        _print_errors(walk_errors)
        raise typer.Exit(EXIT_ERROR if walk_errors else EXIT_CLEAN)
    if not files and not walk_errors and not skipped:
        warning(f"no Python files found under {', '.join(paths)}")
    return files, walk_errors


@dataclass
class _CheckOutcome:
    """What a check of the files (and the fixes it wrote) leaves to report."""

    files: List[str]
    walk_errors: list
    findings: list
    run_errors: list
    changed_files: List[str] = field(default_factory=list)
    fix_errors: list = field(default_factory=list)
    fixed_counts: dict = field(default_factory=dict)  # path -> Counter of the codes fixed there
    diff_text: str = ""  # --diff: the diff of every group
    changes: list = field(default_factory=list)  # castlint.fixes.FixOutcome.changes: (path, old, new)
    fixes: list = field(default_factory=list)  # (path, castlint.fixes.SourceFix) of each file rewritten

    def errors(self) -> list:
        return sorted(list(self.walk_errors) + list(self.run_errors) + list(self.fix_errors),
                      key=lambda e: (e.path, e.line))


def _check_groups(groups, walk_errors, jobs, quiet, fixing, roots, follow_symlinks_outside) -> "_CheckOutcome":
    """Check (and fix) each group of files with its own settings; one outcome for the run."""
    total = _CheckOutcome([], list(walk_errors), [], [])
    for config, tables, files in groups:
        part = _check_and_fix(files, [], tables, config, jobs, quiet, fixing, roots, follow_symlinks_outside)
        total.files += part.files
        total.findings += part.findings
        total.run_errors += part.run_errors
        total.changed_files += part.changed_files
        total.fix_errors += part.fix_errors
        total.fixed_counts.update(part.fixed_counts)
        total.diff_text += part.diff_text
        total.changes += part.changes
        total.fixes += part.fixes
    total.files.sort()
    total.findings.sort(key=lambda f: f.sort_key())
    return total


def _check_and_fix(files, walk_errors, tables, config, jobs, quiet, fixing, roots, follow_symlinks_outside):
    """Check the files and, with fixing, write the fixes (with --diff, only compute the diff)."""
    fixer = None
    if fixing is not None:
        from castlint.fixes import Fixer

        fixer = Fixer(fixing)
    named = [path for path in roots or () if os.path.isfile(path)]  # parsed even with no trigger word
    run = _progress_run(files, tables, config, jobs, quiet, fixer=fixer, named=named)
    if fixing is None:
        return _CheckOutcome(files, walk_errors, run.findings, run.all_errors)
    findings, run_errors, changed_files, fix_errors, fixed_counts, diff_text, changes = _apply_fixes(
        run, files, tables, quiet, fixing, roots=roots, follow_symlinks_outside=follow_symlinks_outside)
    rewritten = set(changed_files)
    fixes = [(r.path, r.fix) for r in run.results if r.fix is not None and r.path in rewritten]
    return _CheckOutcome(files, walk_errors, findings, run_errors, changed_files, fix_errors, fixed_counts,
                         diff_text, changes, fixes)


def _exit_with_diff(diff_text: str, walk_errors, fix_errors, quiet: bool, exit_zero: bool = False) -> None:
    """--diff: the diff on stdout, the errors on stderr; exit 1 when there is a diff (0 with
    --exit-zero, as ruff does)."""
    sys.stdout.write(_diff_for_stdout(diff_text))
    if not diff_text and not quiet:
        err_console.print("castlint: no fixes to apply")
    errors = sorted(list(walk_errors) + list(fix_errors), key=lambda e: (e.path, e.line))
    _print_errors(errors)
    raise typer.Exit(EXIT_ERROR if errors else (EXIT_FINDINGS if diff_text and not exit_zero else EXIT_CLEAN))


def _diff_for_stdout(text: str) -> str:
    """A diff as it is for a pipe (patch applies it); on a terminal, control characters spelled out."""
    if not text or not sys.stdout.isatty():
        return text
    from castlint.report.names import terminal_safe_lines

    return terminal_safe_lines(text)


def _filter_findings(findings, files, diff_base: Optional[str], with_trace: Optional[str], config=None):
    """--diff-base: only the findings on changed lines; --with-trace: merge a trace's runtime evidence."""
    if diff_base:
        from castlint.gitdiff import GitDiffError, filter_to_changed_lines
        try:
            findings = filter_to_changed_lines(findings, diff_base)
        except GitDiffError as exc:
            raise _fail(str(exc))
    if with_trace:  # runtime evidence from `castlint trace` (docs/trace.md)
        from castlint.trace.report import TraceFileError, merge_with_trace
        from castlint.trace.table import TraceTableError, load_trace_tables
        try:
            confirms = load_trace_tables([str(p) for p in config.extend_rules]).confirms if config else None
            findings = merge_with_trace(findings, files, with_trace, confirms=confirms)
        except (TraceFileError, TraceTableError) as exc:
            from castlint.config import withheld_text

            raise _fail(withheld_text(config, str(exc)) if config is not None else str(exc))
    return findings


def _report(outcome: _CheckOutcome, fmt: OutputFormat, tables, config, fix: bool, fix_only: bool,
            show_fixes: bool, statistics: bool, quiet: bool, colored: bool, output_file: Optional[str]) -> None:
    """Write the report (to stdout or --output-file; errors that the format does not carry to stderr)."""
    errors = outcome.errors()
    fixed = sum(sum(c.values()) for c in outcome.fixed_counts.values())
    meta = {"files": len(outcome.files), "fixed_files": len(outcome.changed_files),
            "no_files": not outcome.files and not outcome.walk_errors,
            "step_total_exclude": tables.decode_step_exclude_words}
    if fix:
        meta["fixed"] = fixed
    if show_fixes and fix:
        meta["fixed_by_file"] = outcome.fixed_counts
    if fix_only:
        if fmt in (OutputFormat.text, OutputFormat.full, OutputFormat.concise, OutputFormat.grouped):
            if not quiet:
                _emit(f"Fixed {fixed} finding{'s' if fixed != 1 else ''}.\n" if fixed else "No findings fixed.\n",
                      output_file)
            _print_errors(errors)
        else:
            _emit(_render(fmt, [], errors, meta, quiet, colored, config=config, tables=tables), output_file)
    elif statistics:
        _emit(_statistics(outcome.findings, fmt, tables), output_file)
        _print_errors(errors)
    else:
        _emit(_render(fmt, outcome.findings, errors, meta, quiet, colored, config=config, tables=tables), output_file)


def _exit_code(outcome: _CheckOutcome, exit_zero: bool, fix_only: bool, exit_non_zero_on_fix: bool) -> int:
    if outcome.errors():
        return EXIT_ERROR
    if exit_non_zero_on_fix and outcome.changed_files:
        return EXIT_FINDINGS
    if outcome.findings and not exit_zero and not fix_only:
        return EXIT_FINDINGS
    return EXIT_CLEAN


def _apply_fixes(run, files, tables, quiet, options, roots=None, follow_symlinks_outside=False):
    """Write (or diff) the fixes a fixing run computed; what is left comes from re-checking
    the rewritten trees, not from parsing the written files again.

    Returns (findings, errors, changed paths, fix errors, {path: Counter of fixed codes}, diff text,
    the changes: (path, bytes before or None, bytes after))."""
    from collections import Counter

    from castlint.fixes import write_fixes
    from castlint.fixes.target import activation_note, detect_target
    from castlint.mla_names import MLA_CODEMOD

    outcome = write_fixes(run.results, options, files, roots=roots, follow_symlinks_outside=follow_symlinks_outside)
    changed = sorted(set(outcome.changed))
    mla_files = {f.path for f in run.findings if f.fix is not None and f.fix.codemod == MLA_CODEMOD}
    if not quiet:
        for path in changed:
            if path in mla_files:
                target = detect_target(path, tables, options.flashinfer_version)
                _line("fixed" if not options.dry_run else "would fix", "green",
                      f"{path}: call form for {target.describe()}")
                note = activation_note(target, tables)
                if note:
                    _line("note", "yellow", f"{path}: {note}")
            elif not options.dry_run:
                _line("fixed", "green", path)
        for path, line, why in outcome.notes:
            _line("not fixed", "yellow", f"{path}:{line}: {why}")
    if options.dry_run:
        return run.findings, run.all_errors, changed, outcome.errors, {}, outcome.diff_text, outcome.changes
    keep = set(changed)
    findings = [f for f in run.findings if f.path not in keep]
    errors = [e for e in run.all_errors if e.path not in keep]
    fixed_counts = {}
    for result in run.results:
        if result.path in keep and result.fix is None:  # changed only as a module another fix updates
            findings += [f for f in run.findings if f.path == result.path]
        elif result.path in keep:
            findings += result.fix.remaining
            before = Counter(f.code for f in result.findings)
            fixed_counts[result.path] = before - Counter(f.code for f in result.fix.remaining)
    findings.sort(key=lambda f: f.sort_key())
    return findings, errors, changed, outcome.errors, fixed_counts, "", outcome.changes


def _add_noqa(groups, walk_errors, jobs, quiet, roots=None, follow_symlinks_outside=False,
              reason: Optional[str] = None) -> int:
    from castlint.noqa import add_noqa

    errors = list(walk_errors)
    findings = []
    named = [path for path in roots or () if os.path.isfile(path)]
    for config, tables, files in groups:
        run = _progress_run(files, tables, config, jobs, quiet, named=named)
        errors += run.all_errors
        findings += run.findings
    outcome = add_noqa(findings, roots=roots, follow_symlinks_outside=follow_symlinks_outside, reason=reason)
    errors += outcome.errors
    for path, why in outcome.notes:
        _line("not fixed", "yellow", f"{path}: {why}")
    for path, line, code in outcome.unplaced:
        warning(f"{path}:{line}: no line of this {code} finding can take a comment (each ends inside a string "
                "or in a backslash continuation); suppress it by hand")
    _print_errors(sorted(errors, key=lambda e: (e.path, e.line)))
    if not quiet:
        n = outcome.added
        _emit(f"Added {n} noqa directive{'s' if n != 1 else ''}.\n", None)
    return EXIT_ERROR if errors else EXIT_CLEAN


def _check_stdin(name, config, tables, fmt, quiet, colored, fix, diff, unsafe, flashinfer_api, flashinfer_version,
                 exit_zero, fix_only, statistics, output_file, profile: str = "full") -> int:
    """`castlint check [--fix] -`: one file from stdin, reported under name.

    Without a fix the report goes to stdout. With one, as ruff does, stdout gets
    the fixed source (or, with --diff, the diff) and the report goes to stderr;
    --fix-only reports nothing but errors."""
    source = _read_stdin(config.max_file_size)
    if len(source) > config.max_file_size:
        return _stdin_too_big(name, config, tables, fmt, quiet, colored, output_file)
    if not (fix or diff):
        return _report_stdin(name, source, config, tables, fmt, quiet, colored, exit_zero, statistics, output_file)
    from castlint.fixes import FixOptions

    options = FixOptions(unsafe=unsafe, dry_run=diff, flashinfer_api=flashinfer_api,
                         flashinfer_version=flashinfer_version, profile=profile)
    return _fix_stdin(name, source, config, tables, options, fmt, quiet, colored, exit_zero, fix_only, statistics,
                      output_file)


def _stdin_too_big(name, config, tables, fmt, quiet, colored, output_file) -> int:
    """stdin over max-file-size: an error for the file, as for one on disk (nothing is parsed)."""
    from castlint.models import FileError

    error = FileError(name, 0, f"stdin holds more than the {config.max_file_size:,}-byte limit "
                               "(max-file-size); not checked", "read")
    meta = {"files": 1, "step_total_exclude": tables.decode_step_exclude_words}
    _emit(_render(fmt, [], [error], meta, quiet, colored), output_file)
    return EXIT_ERROR


def _report_stdin(name, source: bytes, config, tables, fmt, quiet, colored, exit_zero, statistics,
                  output_file) -> int:
    """`castlint check -`: the report on stdout (or --output-file)."""
    from castlint.engine import check_source

    result = check_source(name, source, tables, config)
    findings = sorted(result.findings, key=lambda f: f.sort_key())
    meta = {"files": 1, "sources": {name: source.decode("utf-8", "replace")},
            "step_total_exclude": tables.decode_step_exclude_words}
    errors = list(result.errors)
    _emit(_statistics(findings, fmt, tables) if statistics else
          _render(fmt, findings, errors, meta, quiet, colored, config=config, tables=tables), output_file)
    if errors:
        return EXIT_ERROR
    return EXIT_FINDINGS if findings and not exit_zero else EXIT_CLEAN


def _fix_stdin(name, source: bytes, config, tables, options, fmt, quiet, colored, exit_zero, fix_only, statistics,
               output_file) -> int:
    """`castlint check --fix -`: the fixed source (or the diff) on stdout, the report on stderr."""
    from castlint.engine import call_checked, lost_result
    from castlint.fixes import unified_diff

    done, lost = call_checked(_fix_stdin_work, (name, source, config, tables, options), config)
    if lost is not None:
        failed = lost_result(name, lost)
        done = (failed, source, [], failed)
    before, new, errors, after = done
    if options.dry_run:
        sys.stdout.write(_diff_for_stdout(unified_diff(name, source, new)) if new != source else "")
        sys.stdout.flush()
    else:
        _write_stdout_bytes(new)  # the source, fixed or not: an editor replaces its buffer with it
    findings = sorted(after.findings, key=lambda f: f.sort_key())
    errors = list(after.errors) + errors
    meta = {"files": 1, "sources": {name: new.decode("utf-8", "replace")}, "fixed": 0,
            "step_total_exclude": tables.decode_step_exclude_words}
    if new != source:
        meta["fixed"] = max(0, len(before.findings) - len(after.findings))
    if fix_only:
        _print_errors(errors)
    else:
        report = (_statistics(findings, fmt, tables) if statistics else
                  _render(fmt, findings, errors, meta, quiet, colored, config=config, tables=tables))
        if output_file:
            _emit(report, output_file)
        else:
            sys.stderr.write(report)
            sys.stderr.flush()
    if errors:
        return EXIT_ERROR
    if options.dry_run:
        return EXIT_FINDINGS if new != source and not exit_zero else EXIT_CLEAN
    return EXIT_FINDINGS if findings and not exit_zero and not fix_only else EXIT_CLEAN


def _fix_stdin_work(name, source: bytes, config, tables, options) -> tuple:
    """(the check before, the fixed source, fix errors, the check after): the part of a stdin
    fix that parses, run in a worker (castlint.engine.call_checked)."""
    from castlint.engine import check_file
    from castlint.fixes import FixError, fix_source
    from castlint.models import FileError

    cost_model = config.cost_model(tables)
    errors = []
    before = check_file(name, tables, config, cost_model, source=source)
    new = source
    if not before.errors and any(f.fixable for f in before.findings):
        try:
            new = fix_source(source, name, tables, options, config).new_source
        except SyntaxError as exc:
            errors.append(FileError(name, exc.lineno or 1, str(exc.msg), "parse"))
        except FixError as exc:
            errors.append(FileError(name, exc.line, str(exc), "fix"))
    after = check_file(name, tables, config, cost_model, source=new) if new != source else before
    return before, new, errors, after


# `castlint fix` takes check's options, less those that only make sense for a check, and
# with its own words for two of them: one declaration of each option, in check().
FIX_FIXED = dict(fix=True, exit_zero=False, diff_base=None, with_trace=None, add_noqa=False, noqa_reason=None,
                 show_files=False, show_settings=False)
FIX_OWN_OPTIONS = {
    "diff": typer.Option(False, "--diff", help="Print a unified diff and write nothing."),
    "fix_only": typer.Option(False, "--fix-only", help="Do not report (or exit 1 for) what is left."),
}


def fix_command(**given):
    """Apply fixes (same as `castlint check --fix`); --diff previews them; `castlint fix -` fixes stdin to stdout."""
    _call_check(given, **FIX_FIXED)


def _fix_signature() -> "inspect.Signature":
    import inspect
    import typing

    hints = typing.get_type_hints(check)
    params = [param.replace(default=FIX_OWN_OPTIONS.get(name, param.default), annotation=hints[name])
              for name, param in inspect.signature(check).parameters.items() if name not in FIX_FIXED]
    return inspect.Signature(params)


fix_command.__signature__ = _fix_signature()
app.command("fix", cls=PlainHelp, short_help="Apply fixes (castlint check --fix); --diff previews.")(fix_command)


def _call_check(given: dict, **fixed):
    """check() with the given and fixed values (names check() lacks are dropped), and each
    option's own default for the rest, so that a new option of check() needs no change here."""
    import inspect

    args = {}
    for name, param in inspect.signature(check).parameters.items():
        if name in fixed:
            args[name] = fixed[name]
        elif name in given:
            args[name] = given[name]
        else:
            default = param.default
            args[name] = getattr(default, "default", default)
    check(**args)


def _rules_table(fmt: Optional[OutputFormat]) -> None:
    """The rule list, from castlint.codes: no libcst import, as fast as --version."""
    from castlint.codes import RULES

    if fmt == OutputFormat.json:
        import json
        typer.echo(json.dumps([{"code": r.code, "name": r.name, "summary": r.summary, "fix": r.fix} for r in RULES],
                              indent=2))
        return
    from rich.table import Table

    table = Table(title="castlint rules", show_lines=False)
    table.add_column("Code", style="bold", no_wrap=True)
    table.add_column("Name", style="cyan", no_wrap=True)
    table.add_column("Summary")
    table.add_column("Fix", no_wrap=True)
    for r in RULES:
        table.add_row(Text(r.code), Text(r.name), Text(r.summary), Text(r.fix))
    Console(highlight=False).print(table)


def _rule_doc(code: str, fmt: Optional[OutputFormat]) -> None:
    from castlint.codes import lookup

    info = lookup(code)
    if info is None:
        raise _fail(f"no rule {code!r}; run `castlint rules` for the list")
    from castlint.checks import RULES_BY_CODE

    rule = RULES_BY_CODE[info.code]
    if fmt == OutputFormat.json:
        import json
        typer.echo(json.dumps({"code": rule.code, "name": rule.name, "summary": rule.summary, "fix": info.fix,
                               "explanation": rule.markdown()}, indent=2))
        return
    from rich.markdown import Markdown

    Console(highlight=False).print(Markdown(rule.markdown()))


@app.command(cls=PlainHelp)
def rules(
    code: Optional[str] = typer.Argument(None, help="Show this rule's documentation (a code or a name)."),
    fmt: Optional[OutputFormat] = typer.Option(None, "--format", "-f", "--output-format", help="text or json."),
):
    """List the rules, or document one."""
    if code is None:
        _rules_table(fmt)
    else:
        _rule_doc(code, fmt)


@app.command(cls=PlainHelp)
def rule(
    code: Optional[str] = typer.Argument(None, help="The rule's code (CL001) or name (whole-pool-cast)."),
    all_rules: bool = typer.Option(False, "--all", help="Document every rule."),
    fmt: Optional[OutputFormat] = typer.Option(None, "--format", "-f", "--output-format", help="text or json."),
):
    """Document one rule (ruff's `rule`): `castlint rule CL001`."""
    from castlint.codes import RULE_CODES

    if all_rules:
        for one in RULE_CODES:
            _rule_doc(one, fmt)
        return
    if code is None:
        raise _fail("name a rule (`castlint rule CL001`), or pass --all; `castlint rules` lists them")
    _rule_doc(code, fmt)


def _fix_word(rule) -> str:
    """The Fix column of a rule class, in the words castlint.codes lists (tests/test_selectors.py
    checks that the two agree)."""
    text = rule.fix_safety.lower()
    if text.startswith("no automatic fix"):
        return "—"
    return "safe/unsafe" if "unsafe" in text else "safe"


@app.command(cls=PlainHelp, short_help="Prove a fix equal and faster on a GPU.")
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
    fix_profile: str = typer.Option("full", "--profile", metavar="full|minimal", help="Profile of the in-memory fix, as `castlint fix --profile`: full (every read) or minimal (the decode native read only). Not the kernel proof: that is --no-profile."),
    site: Optional[List[str]] = typer.Option(None, "--site", help="Only these sites: decode, decode-cuda-graph, extend-paged, target-verify, target-verify-cuda-graph, draft-extend, draft-extend-cuda-graph."),
    draft_tokens: int = typer.Option(4, "--draft-tokens", help="target-verify / draft-extend: queries per request (the speculative window)."),
    no_native: bool = typer.Option(False, "--no-native", help="Run the patched backend with SGLANG_MLA_KV_READ=compact: never the native FP8-KV kernel (the path of a GPU without it)."),
    iters: Optional[int] = typer.Option(None, "--iters", help="Timed iterations per path (default 50; cpu 3)."),
    warmup: Optional[int] = typer.Option(None, "--warmup", help="Warm-up calls before timing (default 5; cpu 1)."),
    mla_backend: Optional[str] = typer.Option(None, "--mla-backend", help="Force the MLA wrapper backend (fa2 | fa3) instead of the file's 'auto'."),
    emulate_flashinfer: Optional[str] = typer.Option(None, "--emulate-flashinfer", help="--device cpu: the FlashInfer contract the reference follows (default: the newest pin in rules/sglang.toml)."),
    layer_k_scale: float = typer.Option(2.0, "--layer-k-scale", help="k_scale the layer double carries (the pool never applies it)."),
    require_native: bool = typer.Option(False, "--require-native", help="Also fail unless the patched code took the native FP8 branch."),
    no_profile: bool = typer.Option(False, "--no-profile", help="Skip the torch.profiler kernel proof."),
    no_flush_l2: bool = typer.Option(False, "--no-flush-l2", help="Do not flush L2 between timed calls."),
    output_file: Optional[str] = typer.Option(None, "--output-file", "-o", help="Write the report to this file."),
    json_file: Optional[str] = typer.Option(None, "--json-file", help="Also write the JSON report to this file."),
    sweep: bool = typer.Option(False, "--sweep", help="Run a grid of decode, extend, target-verify and draft-extend shapes and pool sizes (and, on the biggest pool, with the native read off); fail if any cell is slower or off tolerance."),
    sweep_pool: Optional[List[int]] = typer.Option(None, "--sweep-pool", help="--sweep: only these pool sizes (tokens)."),
    svg: Optional[str] = typer.Option(None, "--svg", help="--sweep: write a heat map of the speed-up per cell (SVG)."),
    speed_gate: Optional[bool] = typer.Option(None, "--speed-gate/--no-speed-gate", help="Fail a site whose patched path is slower than the original beyond its p10-p90 noise margin (default: on with --device cuda)."),
    validate_config: Optional[str] = typer.Option(None, "--config", help="Config file whose extend-rules the fix and the FlashInfer contract use (default: the nearest pyproject.toml / castlint.toml)."),
):
    """Run the original and the fixed backend on a GPU: prove it equal and faster."""
    _refuse_profile(fix_profile)
    from castlint.validate.command import run_validate  # torch is imported only here

    raise typer.Exit(run_validate(
        path=path, baseline=baseline, device=device, preset=preset, tp=tp, pool_tokens=pool_tokens,
        batch_size=batch_size, context_len=context_len, extend_len=extend_len, atol=atol, rtol=rtol, fmt=fmt,
        flashinfer_api=flashinfer_api, flashinfer_version=flashinfer_version, sites=site, iters=iters,
        warmup=warmup, mla_backend=mla_backend, emulate_flashinfer=emulate_flashinfer,
        layer_k_scale=layer_k_scale, require_native=require_native, profile=not no_profile,
        flush_l2=not no_flush_l2, output_file=output_file, json_file=json_file, sweep=sweep,
        sweep_pools=sweep_pool, sweep_svg=svg, speed_gate=speed_gate, config_file=validate_config,
        draft_tokens=draft_tokens, no_native=no_native, fix_profile=fix_profile))


@app.command(cls=PlainHelp, short_help="Report on the pull request (in CI).")
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


@app.command(cls=PlainHelp, short_help="Report dtype conversions at runtime.", context_settings={"ignore_unknown_options": True, "allow_interspersed_args": False})
def trace(
    command: Optional[List[str]] = typer.Argument(None, help="The program to run, after `--`: castlint trace -- python my_bench.py ..."),
    module: Optional[str] = typer.Option(None, "--module", "-m", help="Run pkg.mod:func (call it) or pkg.mod (as __main__) in this process instead."),
    threshold: Optional[str] = typer.Option(None, "--threshold", "-t", help="Smallest input to report: bytes or 64MiB, 1GB, ... (default: rules/trace.toml, 64MiB)."),
    fmt: Optional[OutputFormat] = FORMAT_OPT,
    output_file: Optional[str] = OUTPUT_FILE_OPT,
    jobs: int = typer.Option(1, "--jobs", "-j", help="Workers for the static check of the files the trace points at."),
    no_static: bool = typer.Option(False, "--no-static", help="Do not run the static check (every runtime finding is CL101)."),
    skip: Optional[List[str]] = typer.Option(None, "--skip", help="Frames under this path are not the engine's (like torch's); repeatable."),
    exit_zero: bool = typer.Option(False, "--exit-zero", help="Exit 0 even when conversions are reported."),
    config_file: Optional[str] = CONFIG_OPT,
    quiet: bool = QUIET_OPT,
    color: ColorMode = COLOR_OPT,
):
    """Run a PyTorch program and report whole-buffer dtype conversions at runtime (docs/trace.md).

    Needs torch (the validate extra). Each finding names the engine line, op, dtypes, bytes and count per step;
    a line a static finding covers is "confirmed at runtime", any other is CL101.
    """
    from castlint.trace.command import run_trace

    raise typer.Exit(run_trace(command=command, module=module, threshold=threshold,
                               fmt=_default_format(fmt).value, output_file=output_file, jobs=jobs,
                               static=not no_static, exit_zero=exit_zero, quiet=quiet, config_file=config_file,
                               skip=skip or (), color=_set_color(color)))


@app.command(cls=PlainHelp, short_help="Language server on stdio (editors).")
def server():
    """Speak the Language Server Protocol on stdin/stdout (editors; needs `castlint[lsp]`).

    Diagnostics from the unsaved buffer on open and change, code actions that apply a
    finding's fix or suppress it on its line, settings from each file's nearest config."""
    from castlint.server import run

    raise typer.Exit(run())


def main(argv: Optional[List[str]] = None):
    """Entry point: treat `castlint [--fix] PATHS` as `castlint check ...`.

    A crash is exit 2 with one line, never exit 1 and never a traceback; `--verbose`
    (anywhere on the command line) adds the traceback."""
    from castlint.common.streams import StreamClosed, guard_standard_streams

    guard_standard_streams()
    args = list(sys.argv[1:] if argv is None else argv)
    verbose = "--verbose" in args
    args = [a for a in args if a != "--verbose"]
    args = _add_noqa_reason(args)
    if args == ["rules"]:  # the rule list, without typer's per-command set-up: as fast as --version
        try:
            _rules_table(None)
        except (StreamClosed, OSError) as exc:
            _output_failed(exc)
        sys.exit(EXIT_CLEAN)
    root_only = {"--version", "-V", "--help", "-h"}
    if args and args[0] not in SUBCOMMANDS and not (set(args) & root_only and args[0] in root_only):
        unknown = _unknown_subcommand(args[0])
        if unknown is not None:
            _last_words(unknown)
            sys.exit(EXIT_ERROR)
        args = ["check", *args]
    from castlint.common import interrupt

    previous = interrupt.install()  # SIGINT/SIGTERM/SIGHUP: Interrupted, so writes clean up their temp files
    try:
        app(args=args, prog_name="castlint", standalone_mode=True)
    except SystemExit as exc:
        code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else EXIT_ERROR)
        if code == TYPER_INTERRUPTED:  # typer's answer to a KeyboardInterrupt it caught
            _last_words("castlint: interrupted")
        # click uses 2 for usage errors already; keep 0/1/2 only.
        sys.exit(code if code in (0, 1, 2) else EXIT_ERROR)
    except (interrupt.Interrupted, KeyboardInterrupt):
        _last_words("castlint: interrupted")
        sys.exit(EXIT_ERROR)
    except BrokenPipeError:  # `castlint check | head`: the reader left; not a crash, nothing to say
        try:
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        except (OSError, ValueError, AttributeError):
            pass
        sys.exit(EXIT_ERROR)
    except StreamClosed as exc:
        _output_failed(exc)
    except OSError as exc:
        if exc.filename is not None or exc.errno not in _OUTPUT_ERRNOS:
            _crash(exc, verbose)
        _output_failed(exc)
    except Exception as exc:  # noqa: BLE001 - a crash: exit 2 and one line, the traceback only on request
        _crash(exc, verbose)
    finally:
        interrupt.restore(previous)


def _add_noqa_reason(args: List[str]) -> List[str]:
    """`--add-noqa=REASON` (ruff's optional value) -> `--add-noqa --noqa-reason REASON`."""
    out = []
    for arg in args:
        if arg == "--":
            out += args[len(out):]
            break
        if arg.startswith("--add-noqa="):
            out += ["--add-noqa", "--noqa-reason", arg[len("--add-noqa="):]]
        else:
            out.append(arg)
    return out


TYPER_INTERRUPTED = 130  # typer turns a KeyboardInterrupt into Exit(130), 128 + SIGINT


def _unknown_subcommand(word: str) -> Optional[str]:
    """The error line for a first word that is neither a subcommand nor a path, or None.

    `castlint PATHS` means `castlint check PATHS`, so a word is a path when it exists,
    is an option, or looks like one (a separator, a suffix, `-`, `.`). Anything else is a
    mistyped subcommand, and the message suggests the nearest (as ruff and git do)."""
    import difflib

    if word.startswith("-") or os.path.lexists(word) or "/" in word or os.sep in word or "." in word:
        return None
    if not word.replace("_", "").replace("-", "").isalnum():
        return None
    names = sorted(SUBCOMMANDS)
    near = difflib.get_close_matches(word, names, n=1, cutoff=0.6)
    hint = f"; did you mean `castlint {near[0]}`?" if near else ""
    return (f"castlint: error: unrecognized subcommand {word!r}{hint} (subcommands: {', '.join(names)}; "
            f"for a path of that name: `castlint check {word}`)")


_OUTPUT_ERRNOS = {getattr(errno, name) for name in ("ENOSPC", "EIO", "EBADF", "EDQUOT", "EFBIG")
                  if hasattr(errno, name)}


def _crash(exc: BaseException, verbose: bool) -> None:
    if verbose:
        import traceback

        traceback.print_exc()
    text = " ".join(f"{type(exc).__name__}: {exc}".split())
    error(f"internal error: {text[:500]} (this is a castlint bug; --verbose shows the traceback)")
    sys.exit(EXIT_ERROR)


def _output_failed(exc: BaseException) -> None:
    """stdout is closed or cannot take the report (a full disk): one line, exit 2. Later writes
    (the interpreter's flush at exit) go to /dev/null, so nothing else is printed."""
    from castlint.common.streams import StreamClosed

    if isinstance(exc, StreamClosed):
        _last_words(f"castlint: error: {exc}")
    else:
        _last_words(f"castlint: error: cannot write the output: {exc.strerror or exc}")
    try:
        sys.stdout = open(os.devnull, "w", encoding="utf-8")
    except OSError:
        pass
    sys.exit(EXIT_ERROR)


def _last_words(text: str) -> None:
    """One line on stderr, whatever state stderr is in (closed, a terminal that hung up)."""
    try:
        sys.stderr.write(text + "\n")
        sys.stderr.flush()
    except (OSError, ValueError, AttributeError):
        pass
