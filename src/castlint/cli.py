"""The typer app: check, fix, rules, validate, bot.

`castlint --fix PATHS` and `castlint PATHS` work too (they mean `castlint check`),
as `ruff --fix` does.
"""

from __future__ import annotations

import errno
import os
import sys
from contextlib import contextmanager, nullcontext
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

_OUTCOME = {EXIT_CLEAN: "no findings", EXIT_FINDINGS: "findings", EXIT_ERROR: "errors"}  # a watched run

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
    version: bool = typer.Option(
        False, "--version", "-V", callback=_version, is_eager=True, help="Show the version and exit."
    ),
):
    """castlint: static analysis and repair of hidden whole-pool dtype casts."""
    if ctx.invoked_subcommand is None:
        typer.echo(ctx.get_help())


def _split(values: Optional[List[str]]) -> List[str]:
    return [part.strip() for value in values or () for part in value.split(",") if part.strip()]


@contextmanager
def _refusals():
    """A castlint.session.SessionError is the one line of an exit 2."""
    from castlint.session import SessionError

    try:
        yield
    except SessionError as exc:
        raise _fail(str(exc)) from None


def _session(flags, paths):
    """The run's castlint.session.Session: the per-file settings, every selector (from a flag or
    a file) through castlint.codes; exit 2 with one clear line naming the flag, or the file and key."""
    from castlint.session import Session

    with _refusals():
        return Session(flags, paths)


def _progress(quiet: bool):
    """What castlint.session.Session.check calls with the number of files: a progress bar on a
    terminal for 200 files or more, else nothing."""

    def bar(total: int):
        if quiet or total < 200 or not sys.stderr.isatty():
            return nullcontext(None)
        return _bar(total)

    return bar


@contextmanager
def _bar(total: int):
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TimeElapsedColumn

    with Progress(
        "[progress.description]{task.description}",
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        console=err_console,
        transient=True,
    ) as progress:
        task = progress.add_task("checking", total=total)
        yield lambda n: progress.advance(task, n)


def _emit(text: str, output_file: Optional[str]):
    if output_file:
        try:
            Path(output_file).write_text(text, encoding="utf-8")
        except OSError as exc:
            raise _fail(f"--output-file {output_file}: cannot write: {exc.strerror or exc}")
    else:
        sys.stdout.write(text)
        sys.stdout.flush()


def _render(fmt: OutputFormat, findings, errors, meta, quiet: bool, color: bool) -> str:
    """The report in fmt (castlint.report); the fixes' edits are on the findings (_edit_options)."""
    from castlint.report import FORMATS, render

    name = "text" if fmt in (OutputFormat.text, OutputFormat.full) else fmt.value
    if name not in FORMATS:
        raise _fail(f"output format {fmt.value!r} is not available in this build")
    return render(name, findings, errors, meta, quiet=quiet, color=color)


def _edit_options(fmt: OutputFormat, fixing, statistics: bool, **options):
    """The fix options whose edits the findings carry, for a check whose report shows them
    (castlint.report.SHOWS_FIX_EDITS) and fixes nothing; None otherwise (no fix is computed)."""
    from castlint.report import SHOWS_FIX_EDITS

    if fixing is not None or statistics or fmt.value not in SHOWS_FIX_EDITS:
        return None
    from castlint.fixoptions import FixOptions

    return FixOptions(dry_run=True, **options)


def _default_format(fmt: Optional[OutputFormat]) -> OutputFormat:
    if fmt is not None:
        return fmt
    if os.environ.get("GITHUB_ACTIONS") == "true":
        from castlint.report import FORMATS

        if "github" in FORMATS:
            return OutputFormat.github
    return OutputFormat.text


def _statistics(session, findings, fmt: OutputFormat) -> str:
    """--statistics: the session's counts, rendered by castlint.report.statistics."""
    from castlint.report.statistics import render

    return render(session.statistics(findings), as_json=fmt == OutputFormat.json)


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


PATHS_ARG = typer.Argument(
    None, metavar="[PATHS]...", help="Files or directories to check (default: .); `-` reads one file from stdin."
)
SELECT_OPT = typer.Option(
    None,
    "--select",
    metavar="CODE,...",
    help="Only these rule codes (comma-separated, prefixes allowed; ALL for every rule).",
)
EXTEND_SELECT_OPT = typer.Option(
    None, "--extend-select", metavar="CODE,...", help="Rule codes to enable on top of select."
)
IGNORE_OPT = typer.Option(None, "--ignore", metavar="CODE,...", help="Skip these rule codes.")
FORMAT_OPT = typer.Option(
    None,
    "--format",
    "-f",
    "--output-format",
    metavar="FORMAT",
    help="text (full), concise, grouped, json, json-lines, junit, sarif, github, gitlab, "
    "pylint, azure or rdjson (github is the default under GitHub Actions); "
    "--output-format is ruff's name.",
)
CONFIG_OPT = typer.Option(
    None, "--config", help="Read config from this file instead of the nearest pyproject.toml/castlint.toml."
)
# rich help panels, as ruff groups its options (the help stays readable at 80 columns)
RULE_PANEL, FIX_PANEL, FILE_PANEL, REPORT_PANEL, RUN_PANEL = (
    "Rule selection",
    "Fixes",
    "File selection",
    "Reporting",
    "Run",
)
PANEL_ORDER = [RULE_PANEL, FILE_PANEL, FIX_PANEL, REPORT_PANEL, RUN_PANEL, "Options"]
OPTION_PANELS = {  # check's (and fix's) options without a panel of their own
    "select": RULE_PANEL,
    "extend_select": RULE_PANEL,
    "ignore": RULE_PANEL,
    "fmt": REPORT_PANEL,
    "exit_zero": REPORT_PANEL,
    "quiet": REPORT_PANEL,
    "output_file": REPORT_PANEL,
    "statistics": REPORT_PANEL,
    "show_fixes": FIX_PANEL,
    "color": REPORT_PANEL,
    "show_files": FILE_PANEL,
    "show_settings": RUN_PANEL,
    "unsafe_fixes": FIX_PANEL,
    "flashinfer_api": FIX_PANEL,
    "flashinfer_version": FIX_PANEL,
    "exit_non_zero_on_fix": FIX_PANEL,
    "follow_symlinks_outside": FIX_PANEL,
    "exclude": FILE_PANEL,
    "extend_exclude": FILE_PANEL,
    "respect_gitignore": FILE_PANEL,
    "stdin_filename": FILE_PANEL,
    "jobs": RUN_PANEL,
    "no_cache": RUN_PANEL,
    "fix": FIX_PANEL,
    "fix_only": FIX_PANEL,
    "diff": FIX_PANEL,
    "profile": FIX_PANEL,
    "pr_body": FIX_PANEL,
    "patch": FIX_PANEL,
    "validate_json": FIX_PANEL,
}
CHECK_CONFIG_OPT = typer.Option(
    None,
    "--config",
    metavar="FILE|KEY=VALUE",
    help="A config file to use instead of each file's nearest pyproject.toml/castlint.toml, or a `KEY = "
    "VALUE` TOML setting over it (repeatable).",
    rich_help_panel=RUN_PANEL,
)
FORCE_EXCLUDE_OPT = typer.Option(
    False,
    "--force-exclude",
    help="Apply exclude and .gitignore to paths named on the command line too (what the pre-commit hook passes).",
    rich_help_panel=FILE_PANEL,
)
PER_FILE_IGNORES_OPT = typer.Option(
    None,
    "--per-file-ignores",
    metavar="GLOB:CODES",
    help="GLOB:CODE[,CODE]: ignore these codes in matching files, replacing the configured per-file-ignores "
    "(repeatable).",
    rich_help_panel=RULE_PANEL,
)
EXTEND_PER_FILE_IGNORES_OPT = typer.Option(
    None,
    "--extend-per-file-ignores",
    metavar="GLOB:CODES",
    help="GLOB:CODE[,CODE]: as --per-file-ignores, on top of the configured ones.",
    rich_help_panel=RULE_PANEL,
)
IGNORE_NOQA_OPT = typer.Option(
    False, "--ignore-noqa", help="Ignore every suppression comment (line and file level).", rich_help_panel=RULE_PANEL
)
ISOLATED_OPT = typer.Option(
    False, "--isolated", help="Read no config file (the defaults and the flags only).", rich_help_panel=RUN_PANEL
)
WATCH_OPT = typer.Option(
    False, "--watch", "-w", help="Check again whenever a file changes (Ctrl-C ends it).", rich_help_panel=RUN_PANEL
)
QUIET_OPT = typer.Option(False, "--quiet", "-q", help="Only the findings: no code frames, no summary.")
EXCLUDE_OPT = typer.Option(
    None,
    "--exclude",
    metavar="GLOB,...",
    help="Glob patterns to skip, replacing the configured exclude (the defaults stay).",
)
EXTEND_EXCLUDE_OPT = typer.Option(
    None, "--extend-exclude", metavar="GLOB,...", help="Glob patterns to skip, on top of exclude."
)
GITIGNORE_OPT = typer.Option(
    None,
    "--respect-gitignore/--no-respect-gitignore",
    help="Skip what .gitignore files ignore (default: on, or respect-gitignore in the config).",
)
COLOR_OPT = typer.Option(
    ColorMode.auto, "--color", help="Colour: auto (on a terminal, unless NO_COLOR is set), always, never."
)
STDIN_OPT = typer.Option(
    None,
    "--stdin-filename",
    metavar="PATH",
    help="Read the source from stdin and report it under this name (config, messages).",
)
SHOW_FILES_OPT = typer.Option(False, "--show-files", help="List the files that would be checked, and exit.")
SHOW_SETTINGS_OPT = typer.Option(
    False, "--show-settings", help="Print the settings in force (config plus flags), and exit."
)
STATISTICS_OPT = typer.Option(False, "--statistics", help="Count the findings per rule instead of listing them.")
SHOW_FIXES_OPT = typer.Option(False, "--show-fixes", help="With a fix: list what was fixed, per file and rule.")
JOBS_OPT = typer.Option(0, "--jobs", "-j", help="Parallel workers (default: core count).")
NO_CACHE_OPT = typer.Option(False, "--no-cache", help="Do not read or write .castlint_cache/.")
OUTPUT_FILE_OPT = typer.Option(None, "--output-file", "-o", metavar="FILE", help="Write the report to this file.")
UNSAFE_OPT = typer.Option(False, "--unsafe-fixes", help="Also apply fixes marked unsafe.")
FI_API_OPT = typer.Option(
    "auto",
    "--flashinfer-api",
    help="Call form the fix emits: auto (what the target pins), positional, or keyword (FlashInfer >= 0.7).",
)
FI_VERSION_OPT = typer.Option(
    None,
    "--flashinfer-version",
    help="FlashInfer the fixed code will run against (default: the pin the tree states, else rules/sglang.toml).",
)
PROFILE_OPT = typer.Option(
    "full",
    "--profile",
    metavar="full|minimal",
    help="What the MLA fix rewrites: full (every read, the default) or minimal (the decode native read only).",
)
PR_BODY_OPT = typer.Option(
    None,
    "--pr-body",
    metavar="FILE",
    help="With a fix: write a Markdown pull-request description of the change to FILE (with --diff too; the "
    "tree is then left alone).",
)
PATCH_OPT = typer.Option(
    None,
    "--patch",
    metavar="FILE",
    help="With a fix: write the change as a `git format-patch` file, paths from the tree's root (git apply / "
    "git am / patch -p1).",
)
VALIDATE_JSON_OPT = typer.Option(
    None,
    "--validate-json",
    metavar="FILE",
    help="With --pr-body: a `castlint validate --json-file` (or --sweep) report whose results the description shows.",
)
EXIT_ON_FIX_OPT = typer.Option(
    False, "--exit-non-zero-on-fix", help="Exit 1 when a fix changed a file (pre-commit style)."
)
FOLLOW_OPT = typer.Option(
    False,
    "--follow-symlinks-outside",
    help="Let a fix (or --add-noqa) write through a symlink whose target is outside the checked paths "
    "(default: such files are not written).",
)


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
    fix: bool = typer.Option(
        False, "--fix", help="Apply safe fixes, then report what is left.", rich_help_panel=FIX_PANEL
    ),
    fix_only: bool = typer.Option(
        False, "--fix-only", help="Apply fixes; do not report (or exit 1 for) what is left.", rich_help_panel=FIX_PANEL
    ),
    unsafe_fixes: bool = UNSAFE_OPT,
    diff: bool = typer.Option(
        False, "--diff", help="With --fix: print a unified diff and write nothing.", rich_help_panel=FIX_PANEL
    ),
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
    diff_base: Optional[str] = typer.Option(
        None,
        "--diff-base",
        help="Only report findings on lines changed since this git revision.",
        rich_help_panel=REPORT_PANEL,
    ),
    with_trace: Optional[str] = typer.Option(
        None,
        "--with-trace",
        help="A `castlint trace --format json` report: mark the findings it confirms at runtime, add its new "
        "runtime findings (CL101) in these files.",
        rich_help_panel=REPORT_PANEL,
    ),
    statistics: bool = STATISTICS_OPT,
    add_noqa: bool = typer.Option(
        False,
        "--add-noqa",
        help="Add a `# noqa: CODE` comment for every current finding (adopt castlint on a big tree); "
        "--add-noqa=REASON adds the reason after the codes.",
        rich_help_panel=FIX_PANEL,
    ),
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
        raise _fail(
            "--watch re-checks files on disk: it cannot be combined with stdin, --add-noqa, --show-files "
            "or --show-settings"
        )
    if isolated and config_file and any("=" not in value for value in config_file):
        raise _fail(
            "--isolated reads no config file: it cannot be combined with --config FILE (--config KEY=VALUE is fine)"
        )
    flags = _command_line(
        config_file,
        select,
        ignore,
        extend_select,
        exclude,
        extend_exclude,
        respect_gitignore,
        per_file_ignores,
        extend_per_file_ignores,
        isolated,
        ignore_noqa,
        no_cache,
    )
    config_paths = [stdin_filename or "."] if stdin else (paths or ["."])
    session = _session(flags, config_paths)
    fmt = _default_format(fmt)
    if show_settings:
        from castlint.report.settings import render

        _emit(render(session.shown_settings(), as_json=fmt == OutputFormat.json), output_file)
        raise typer.Exit(EXIT_CLEAN)
    fixing = None
    if fix or diff:
        from castlint.fixoptions import FixOptions

        fixing = FixOptions(
            unsafe=unsafe_fixes,
            dry_run=diff,
            flashinfer_api=flashinfer_api,
            flashinfer_version=flashinfer_version,
            profile=profile,
        )
    edits = _edit_options(
        fmt,
        fixing,
        statistics,
        unsafe=unsafe_fixes,
        flashinfer_api=flashinfer_api,
        flashinfer_version=flashinfer_version,
        profile=profile,
    )
    if stdin:
        raise typer.Exit(
            _check_stdin(
                session,
                stdin_filename or "-",
                fixing,
                fmt,
                quiet,
                colored,
                exit_zero,
                fix_only,
                statistics,
                output_file,
                edits,
            )
        )
    paths = paths or ["."]

    sessions = [session]

    def once() -> int:
        session = sessions[-1]
        sessions.append(None)
        if session is None:  # --watch, again: the configs are read afresh (one may have changed)
            session = _session(flags, config_paths)
        discovery = _discover_files(session, paths, show_files, output_file, force_exclude)
        if add_noqa:
            return _add_noqa(session, paths, discovery, jobs, quiet, follow_symlinks_outside, noqa_reason)
        with _refusals():
            outcome = session.check(
                paths,
                fix=fixing,
                jobs=jobs,
                follow_symlinks_outside=follow_symlinks_outside,
                discovery=discovery,
                progress=_progress(quiet),
                edits=edits,
            )
        if not quiet:
            _print_fixed(outcome, fixing)
        if pr_request is not None:
            _write_pr(session, pr_request, pr_report, outcome, fixing, quiet)
        if fixing is not None and fixing.dry_run:
            _exit_with_diff(outcome.diff_text, outcome.walk_errors, outcome.fix_errors, quiet, exit_zero)
        with _refusals():
            session.filter_findings(outcome, diff_base)
        if with_trace:  # runtime evidence from `castlint trace` (docs/trace.md)
            from castlint.trace.report import TraceFileError
            from castlint.trace.report import with_trace as merged

            try:
                outcome.findings = merged(outcome.findings, outcome.files, with_trace, session.config)
            except TraceFileError as exc:
                raise _fail(str(exc))
        _report(session, outcome, fmt, fix, fix_only, show_fixes, statistics, quiet, colored, output_file)
        return _exit_code(outcome, exit_zero, fix_only, exit_non_zero_on_fix)

    if watch:
        raise typer.Exit(_watch(once, paths))
    raise typer.Exit(once())


def _command_line(
    config_values,
    select,
    ignore,
    extend_select,
    exclude,
    extend_exclude,
    respect_gitignore,
    per_file_ignores,
    extend_per_file_ignores,
    isolated,
    ignore_noqa,
    no_cache,
):
    """The flags that change settings, as castlint.settings.CommandLine (exit 2 on a bad --config)."""
    from castlint.session import command_line

    with _refusals():
        return command_line(
            config_values,
            select=select,
            ignore=ignore,
            extend_select=extend_select,
            exclude=exclude,
            extend_exclude=extend_exclude,
            respect_gitignore=respect_gitignore,
            per_file_ignores=per_file_ignores,
            extend_per_file_ignores=extend_per_file_ignores,
            isolated=isolated,
            ignore_noqa=ignore_noqa,
            no_cache=no_cache,
        )


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
            _last_words(f"[{stamp}] {_OUTCOME.get(code) or _OUTCOME[EXIT_ERROR]}. Watching for file changes.")
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


def _refuse_conflicting_flags(
    paths, stdin: bool, fix: bool, diff: bool, add_noqa: bool, flashinfer_api: str, profile: str = "full"
) -> None:
    """Exit 2 for a command line whose flags contradict each other."""
    if paths and "-" in paths and not stdin:
        raise _fail("`-` (stdin) cannot be mixed with other paths")
    if add_noqa and (fix or diff):
        raise _fail("--add-noqa cannot be combined with --fix, --fix-only or --diff")
    if flashinfer_api not in ("auto", "positional", "keyword"):
        raise _fail(f"--flashinfer-api must be auto, positional or keyword, got {flashinfer_api!r}")
    _refuse_profile(profile)


def _refuse_profile(profile: str) -> None:
    """Exit 2 unless --profile names one of castlint.fixoptions.PROFILE_CHOICES."""
    from castlint.fixoptions import PROFILE_CHOICES

    if profile not in PROFILE_CHOICES:
        raise _fail(f"--profile must be {' or '.join(PROFILE_CHOICES)}, got {profile!r}")


def _pr_request(
    pr_body: Optional[str], patch: Optional[str], validate_json: Optional[str], fixing: bool, stdin: bool, watch: bool
):
    """(castlint.pr.PrRequest, the --validate-json report) for --pr-body / --patch, checked before
    anything is fixed (exit 2 on a file that cannot be written or read); (None, None) without them."""
    if not (pr_body or patch or validate_json):
        return None, None
    if not fixing:
        raise _fail(
            "--pr-body, --patch and --validate-json describe a fix: use them with --fix or --diff (or `castlint fix`)"
        )
    if stdin:
        raise _fail("--pr-body and --patch need files on disk (a tree), not stdin")
    if watch:
        raise _fail("--pr-body and --patch describe one fix: they cannot be combined with --watch")
    from castlint.pr import PrError, PrRequest, prepare

    request = PrRequest(body=pr_body, patch=patch, validate_json=validate_json)
    try:
        return request, prepare(request)
    except PrError as exc:
        raise _fail(str(exc))


def _write_pr(session, request, report, outcome, options, quiet: bool) -> None:
    """Write --pr-body / --patch for what the run changed (nothing when it changed nothing)."""
    if not outcome.changes:
        if not quiet:
            warning("the fix changed nothing: no --pr-body or --patch written")
        return
    from castlint.pr import PrError, build_context, write_outputs

    config, tables = session.settings()
    ctx = build_context(
        outcome.changes,
        outcome.fixes,
        tables=tables,
        cost_model=config.cost_model(tables),
        options=options,
        paths=session.paths,
        report=report,
        validate_name=request.validate_json or "",
        version=__version__,
    )
    try:
        written = write_outputs(request, ctx)
    except PrError as exc:
        raise _fail(str(exc))
    if not quiet:
        for path in written:
            _line("wrote", "green", path)


def _discover_files(
    session, paths: List[str], show_files: bool, output_file: Optional[str], force_exclude: bool = False
):
    """castlint.session.Discovery: the files to check, the paths that could not be walked (its
    warnings are printed); --show-files lists them and exits. A named path is walked with its own
    nearest config's exclude and respect-gitignore."""
    with _refusals():
        discovery = session.discover(paths, force_exclude)
    for line in discovery.warnings:
        warning(line)
    if show_files:
        from castlint.report.names import escaped

        _emit("".join(f"{escaped(path)}\n" for path in discovery.files), output_file)
        _print_errors(discovery.errors)
        raise typer.Exit(EXIT_ERROR if discovery.errors else EXIT_CLEAN)
    if not discovery.files and not discovery.errors and not discovery.skipped:
        warning(f"no Python files found under {', '.join(paths)}")
    return discovery


def _print_fixed(outcome, options) -> None:
    """A line per file a fix changed (the MLA rewrite's with its call form and how the switch turns
    it on; with --diff only those), then why a wanted site was not fixed; group by group."""
    if options is None:
        return
    for fixed, not_fixed in outcome.fix_groups:
        for item in fixed:
            if item.mla:
                _line(
                    "fixed" if not options.dry_run else "would fix",
                    "green",
                    f"{item.path}: call form for {item.target}",
                )
                if item.note:
                    _line("note", "yellow", f"{item.path}: {item.note}")
            elif not options.dry_run:
                _line("fixed", "green", item.path)
        for path, line, why in not_fixed:
            _line("not fixed", "yellow", f"{path}:{line}: {why}")


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


def _report(
    session,
    outcome,
    fmt: OutputFormat,
    fix: bool,
    fix_only: bool,
    show_fixes: bool,
    statistics: bool,
    quiet: bool,
    colored: bool,
    output_file: Optional[str],
) -> None:
    """Write the report (to stdout or --output-file; errors that the format does not carry to stderr)."""
    config, tables = session.settings()
    errors = outcome.errors()
    fixed = outcome.fixed_total
    meta = outcome.meta(tables, fix=fix, show_fixes=show_fixes)
    if fix_only:
        if fmt in (OutputFormat.text, OutputFormat.full, OutputFormat.concise, OutputFormat.grouped):
            if not quiet:
                _emit(
                    f"Fixed {fixed} finding{'s' if fixed != 1 else ''}.\n" if fixed else "No findings fixed.\n",
                    output_file,
                )
            _print_errors(errors)
        else:
            _emit(_render(fmt, [], errors, meta, quiet, colored), output_file)
    elif statistics:
        _emit(_statistics(session, outcome.findings, fmt), output_file)
        _print_errors(errors)
    else:
        _emit(_render(fmt, outcome.findings, errors, meta, quiet, colored), output_file)


def _exit_code(outcome, exit_zero: bool, fix_only: bool, exit_non_zero_on_fix: bool) -> int:
    if outcome.errors():
        return EXIT_ERROR
    if exit_non_zero_on_fix and outcome.changed_files:
        return EXIT_FINDINGS
    if outcome.findings and not exit_zero and not fix_only:
        return EXIT_FINDINGS
    return EXIT_CLEAN


def _add_noqa(
    session, paths, discovery, jobs, quiet, follow_symlinks_outside=False, reason: Optional[str] = None
) -> int:
    with _refusals():
        result = session.add_noqa(
            paths,
            jobs=jobs,
            reason=reason,
            follow_symlinks_outside=follow_symlinks_outside,
            discovery=discovery,
            progress=_progress(quiet),
        )
    for path, why in result.notes:
        _line("not fixed", "yellow", f"{path}: {why}")
    for path, line, code in result.unplaced:
        warning(
            f"{path}:{line}: no line of this {code} finding can take a comment (each ends inside a string "
            "or in a backslash continuation); suppress it by hand"
        )
    _print_errors(result.errors)
    if not quiet:
        n = result.added
        _emit(f"Added {n} noqa directive{'s' if n != 1 else ''}.\n", None)
    return EXIT_ERROR if result.errors else EXIT_CLEAN


def _check_stdin(
    session, name, options, fmt, quiet, colored, exit_zero, fix_only, statistics, output_file, edits=None
) -> int:
    """`castlint check [--fix] -`: one file from stdin, reported under name, through the files' pipeline
    (castlint.session.Session.check_source).

    Without a fix the report goes to stdout. With one, as ruff does, stdout gets
    the fixed source (or, with --diff, the diff) and the report goes to stderr;
    --fix-only reports nothing but errors."""
    config, tables = session.settings()
    source = _read_stdin(config.max_file_size)
    with _refusals():
        outcome = session.check_source(source, name, fix=options, edits=edits)
    findings, errors = outcome.findings, list(outcome.run_errors)
    meta = outcome.meta(tables)
    if outcome.stdin_too_big:  # an error for the file, as for one on disk (nothing is parsed)
        _emit(_render(fmt, [], errors, meta, quiet, colored), output_file)
        return EXIT_ERROR
    if options is None:
        _emit(
            _statistics(session, findings, fmt) if statistics else _render(fmt, findings, errors, meta, quiet, colored),
            output_file,
        )
        if errors:
            return EXIT_ERROR
        return EXIT_FINDINGS if findings and not exit_zero else EXIT_CLEAN
    new = outcome.new_source
    if options.dry_run:
        if new != source:
            from castlint.fixes import unified_diff

            sys.stdout.write(_diff_for_stdout(unified_diff(name, source, new)))
        sys.stdout.flush()
    else:
        _write_stdout_bytes(new)  # the source, fixed or not: an editor replaces its buffer with it
    if fix_only:
        _print_errors(errors)
    else:
        report = (
            _statistics(session, findings, fmt) if statistics else _render(fmt, findings, errors, meta, quiet, colored)
        )
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


# `castlint fix` takes check's options, less those that only make sense for a check, and
# with its own words for two of them: one declaration of each option, in check().
FIX_FIXED = dict(
    fix=True,
    exit_zero=False,
    diff_base=None,
    with_trace=None,
    add_noqa=False,
    noqa_reason=None,
    show_files=False,
    show_settings=False,
)
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
    params = [
        param.replace(default=FIX_OWN_OPTIONS.get(name, param.default), annotation=hints[name])
        for name, param in inspect.signature(check).parameters.items()
        if name not in FIX_FIXED
    ]
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

        typer.echo(
            json.dumps([{"code": r.code, "name": r.name, "summary": r.summary, "fix": r.fix} for r in RULES], indent=2)
        )
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

        typer.echo(
            json.dumps(
                {
                    "code": rule.code,
                    "name": rule.name,
                    "summary": rule.summary,
                    "fix": info.fix,
                    "explanation": rule.markdown(),
                },
                indent=2,
            )
        )
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
    path: str = typer.Argument(
        ..., help="An sglang tree or flashinfer_mla_backend.py (unpatched, or patched with --baseline)"
    ),
    baseline: Optional[str] = typer.Option(
        None, "--baseline", help="The original file (or tree): PATH is then the already-patched one."
    ),
    device: str = typer.Option(
        "cuda", "--device", help="cuda: real FlashInfer kernels; cpu: pure-torch reference MLA, small shapes."
    ),
    preset: Optional[str] = typer.Option(
        None, "--preset", help="Model preset from rules/models.toml (glm-5, deepseek-v3, deepseek-r1)."
    ),
    tp: int = typer.Option(1, "--tp", help="Tensor-parallel size: local heads = preset heads / tp."),
    pool_tokens: Optional[int] = typer.Option(
        None, "--pool-tokens", help="KV pool size in tokens (default 495552; cpu 16384)."
    ),
    batch_size: Optional[int] = typer.Option(None, "--batch-size", help="Requests in the batch (default 1; cpu 2)."),
    context_len: Optional[int] = typer.Option(
        None, "--context-len", help="Tokens per request (default 4096; cpu 256)."
    ),
    extend_len: int = typer.Option(32, "--extend-len", help="New tokens per request in the extend (prefill) site."),
    atol: float = typer.Option(1e-2, "--atol", help="Absolute tolerance, patched vs original output."),
    rtol: float = typer.Option(1e-2, "--rtol", help="Relative tolerance, patched vs original output."),
    fmt: str = typer.Option("text", "--format", "-f", help="text (rich table) or json."),
    flashinfer_api: str = typer.Option(
        "auto", "--flashinfer-api", help="Call form for the in-memory fix: auto | positional | keyword."
    ),
    flashinfer_version: Optional[str] = typer.Option(
        None, "--flashinfer-version", help="FlashInfer version the in-memory fix targets (default: the sglang pin)."
    ),
    fix_profile: str = typer.Option(
        "full",
        "--profile",
        metavar="full|minimal",
        help="Profile of the in-memory fix, as `castlint fix --profile`: full (every read) or minimal (the "
        "decode native read only). Not the kernel proof: that is --no-profile.",
    ),
    site: Optional[List[str]] = typer.Option(
        None,
        "--site",
        help="Only these sites: decode, decode-cuda-graph, extend-paged, target-verify, "
        "target-verify-cuda-graph, draft-extend, draft-extend-cuda-graph.",
    ),
    draft_tokens: int = typer.Option(
        4, "--draft-tokens", help="target-verify / draft-extend: queries per request (the speculative window)."
    ),
    no_native: bool = typer.Option(
        False,
        "--no-native",
        help="Run the patched backend with SGLANG_MLA_KV_READ=compact: never the native FP8-KV kernel (the "
        "path of a GPU without it).",
    ),
    iters: Optional[int] = typer.Option(None, "--iters", help="Timed iterations per path (default 50; cpu 3)."),
    warmup: Optional[int] = typer.Option(None, "--warmup", help="Warm-up calls before timing (default 5; cpu 1)."),
    mla_backend: Optional[str] = typer.Option(
        None, "--mla-backend", help="Force the MLA wrapper backend (fa2 | fa3) instead of the file's 'auto'."
    ),
    emulate_flashinfer: Optional[str] = typer.Option(
        None,
        "--emulate-flashinfer",
        help="--device cpu: the FlashInfer contract the reference follows (default: the newest pin in "
        "rules/sglang.toml).",
    ),
    layer_k_scale: float = typer.Option(
        2.0, "--layer-k-scale", help="k_scale the layer double carries (the pool never applies it)."
    ),
    require_native: bool = typer.Option(
        False, "--require-native", help="Also fail unless the patched code took the native FP8 branch."
    ),
    no_profile: bool = typer.Option(False, "--no-profile", help="Skip the torch.profiler kernel proof."),
    no_flush_l2: bool = typer.Option(False, "--no-flush-l2", help="Do not flush L2 between timed calls."),
    output_file: Optional[str] = typer.Option(None, "--output-file", "-o", help="Write the report to this file."),
    json_file: Optional[str] = typer.Option(None, "--json-file", help="Also write the JSON report to this file."),
    sweep: bool = typer.Option(
        False,
        "--sweep",
        help="Run a grid of decode, extend, target-verify and draft-extend shapes and pool sizes (and, on the "
        "biggest pool, with the native read off); fail if any cell is slower or off tolerance.",
    ),
    sweep_pool: Optional[List[int]] = typer.Option(
        None, "--sweep-pool", help="--sweep: only these pool sizes (tokens)."
    ),
    svg: Optional[str] = typer.Option(None, "--svg", help="--sweep: write a heat map of the speed-up per cell (SVG)."),
    speed_gate: Optional[bool] = typer.Option(
        None,
        "--speed-gate/--no-speed-gate",
        help="Fail a site whose patched path is slower than the original beyond its p10-p90 noise margin "
        "(default: on with --device cuda).",
    ),
    validate_config: Optional[str] = typer.Option(
        None,
        "--config",
        help="Config file whose extend-rules the fix and the FlashInfer contract use (default: the nearest "
        "pyproject.toml / castlint.toml).",
    ),
):
    """Run the original and the fixed backend on a GPU: prove it equal and faster."""
    _refuse_profile(fix_profile)
    from castlint.validate.command import run_validate  # torch is imported only here

    raise typer.Exit(
        run_validate(
            path=path,
            baseline=baseline,
            device=device,
            preset=preset,
            tp=tp,
            pool_tokens=pool_tokens,
            batch_size=batch_size,
            context_len=context_len,
            extend_len=extend_len,
            atol=atol,
            rtol=rtol,
            fmt=fmt,
            flashinfer_api=flashinfer_api,
            flashinfer_version=flashinfer_version,
            sites=site,
            iters=iters,
            warmup=warmup,
            mla_backend=mla_backend,
            emulate_flashinfer=emulate_flashinfer,
            layer_k_scale=layer_k_scale,
            require_native=require_native,
            profile=not no_profile,
            flush_l2=not no_flush_l2,
            output_file=output_file,
            json_file=json_file,
            sweep=sweep,
            sweep_pools=sweep_pool,
            sweep_svg=svg,
            speed_gate=speed_gate,
            config_file=validate_config,
            draft_tokens=draft_tokens,
            no_native=no_native,
            fix_profile=fix_profile,
        )
    )


@app.command(cls=PlainHelp, short_help="Report on the pull request (in CI).")
def bot(
    paths: Optional[List[str]] = typer.Argument(
        None, help="Files or directories to check (default: the pull request's changed Python files)."
    ),
    diff_base: Optional[str] = typer.Option(
        None,
        "--diff-base",
        help="Take the changed lines from git (diff since this revision) instead of the GitHub API.",
    ),
    dry_run: bool = typer.Option(False, "--dry-run", help="Print the comment it would post; post nothing."),
    exit_zero: bool = typer.Option(False, "--exit-zero", help="Exit 0 even when there are findings."),
    config_file: Optional[str] = CONFIG_OPT,
    review: bool = typer.Option(
        True, "--review/--no-review", help="Post GitHub suggestion blocks for fixable findings as review comments."
    ),
    check_run: bool = typer.Option(
        True, "--check-run/--no-check-run", help="Create a check run with annotations (needs `checks: write`)."
    ),
    always_comment: bool = typer.Option(
        False, "--always-comment", help="Comment even when clean and no earlier castlint comment exists."
    ),
    max_wait: float = typer.Option(300.0, "--max-wait", help="Longest rate-limit wait (seconds) before giving up."),
):
    """Post the report to the pull request (inside a CI job): one comment, suggestions, a check run.

    Reads GITHUB_TOKEN, GITHUB_REPOSITORY, GITHUB_EVENT_PATH and GITHUB_API_URL. Only parses the PR's code.
    """
    from castlint.bot.command import run_bot

    raise typer.Exit(
        run_bot(
            paths=paths,
            diff_base=diff_base,
            dry_run=dry_run,
            exit_zero=exit_zero,
            config_file=config_file,
            review=review,
            check_run=check_run,
            always_comment=always_comment,
            max_wait=max_wait,
        )
    )


@app.command(
    cls=PlainHelp,
    short_help="Report dtype conversions at runtime.",
    context_settings={"ignore_unknown_options": True, "allow_interspersed_args": False},
)
def trace(
    command: Optional[List[str]] = typer.Argument(
        None, help="The program to run, after `--`: castlint trace -- python my_bench.py ..."
    ),
    module: Optional[str] = typer.Option(
        None, "--module", "-m", help="Run pkg.mod:func (call it) or pkg.mod (as __main__) in this process instead."
    ),
    threshold: Optional[str] = typer.Option(
        None,
        "--threshold",
        "-t",
        help="Smallest input to report: bytes or 64MiB, 1GB, ... (default: rules/trace.toml, 64MiB).",
    ),
    fmt: Optional[OutputFormat] = FORMAT_OPT,
    output_file: Optional[str] = OUTPUT_FILE_OPT,
    jobs: int = typer.Option(1, "--jobs", "-j", help="Workers for the static check of the files the trace points at."),
    no_static: bool = typer.Option(
        False, "--no-static", help="Do not run the static check (every runtime finding is CL101)."
    ),
    skip: Optional[List[str]] = typer.Option(
        None, "--skip", help="Frames under this path are not the engine's (like torch's); repeatable."
    ),
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

    raise typer.Exit(
        run_trace(
            command=command,
            module=module,
            threshold=threshold,
            fmt=_default_format(fmt).value,
            output_file=output_file,
            jobs=jobs,
            static=not no_static,
            exit_zero=exit_zero,
            quiet=quiet,
            config_file=config_file,
            skip=skip or (),
            color=_set_color(color),
        )
    )


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
            out += args[len(out) :]
            break
        if arg.startswith("--add-noqa="):
            out += ["--add-noqa", "--noqa-reason", arg[len("--add-noqa=") :]]
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
    return (
        f"castlint: error: unrecognized subcommand {word!r}{hint} (subcommands: {', '.join(names)}; "
        f"for a path of that name: `castlint check {word}`)"
    )


_OUTPUT_ERRNOS = {
    getattr(errno, name) for name in ("ENOSPC", "EIO", "EBADF", "EDQUOT", "EFBIG") if hasattr(errno, name)
}


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
