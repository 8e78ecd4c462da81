"""Settings -> a run -> data: what the CLI, the PR bot, trace, validate, the language
server and the pre-commit hook all call.

A Session is one run's settings (castlint.settings.Resolver: each file's nearest
config, the command line on top, every config file read once). Its methods check
paths or bytes, and fix them, and return data: an Outcome (findings, errors, what
was fixed, the diff), Statistics, the settings in force. Nothing here prints,
exits or raises typer.Exit; a refusal (a bad flag, an unreadable config, a git
revision that does not exist) is a SessionError whose message is the one line to
show. Rendering is castlint.report's.

    from castlint import session
    outcome = session.check(["src/"])                       # findings and errors
    outcome = session.check_source(b"...", "backend.py")    # bytes not on disk (stdin, an editor)
    outcome = session.fix(["src/"], session.FixOptions(dry_run=True))

The fix package (and libcst.matchers) is loaded only when a file has a fixable
finding: a fixing run over clean files costs what a check costs (LazyFixer). A check
whose report shows fixes (json, sarif, rdjson, the PR bot: `edits=FixOptions(...)`)
runs the codemods the same way, on the analysis that found the findings, and each
fixable finding it serves comes back with its `Fix.edits`; nothing is written.
"""

from __future__ import annotations

import os
from contextlib import nullcontext
from dataclasses import dataclass, field
from typing import Callable, Dict, List, Optional, Sequence, Tuple

from castlint.fixoptions import API_CHOICES, PROFILE_CHOICES, FixOptions
from castlint.settings import CommandLine, Resolver, SettingsRefused

__all__ = [
    "API_CHOICES",
    "PROFILE_CHOICES",
    "CommandLine",
    "Discovery",
    "FixOptions",
    "FixedFile",
    "LazyFixer",
    "NoqaResult",
    "Outcome",
    "Session",
    "SessionError",
    "Statistics",
    "check",
    "check_source",
    "fix",
]


class SessionError(Exception):
    """A run that cannot go ahead: the message is the one line to show (exit 2)."""


@dataclass
class Discovery:
    """The files a run checks, the paths that could not be walked, and what the walk warns about
    (unusable .gitignore lines, paths skipped by --force-exclude, no Python files found)."""

    files: List[str]
    errors: list
    warnings: List[str] = field(default_factory=list)
    skipped: List[str] = field(default_factory=list)


@dataclass
class FixedFile:
    """A file a fix changed (or, with dry_run, would change). mla: the MLA rewrite, with the
    FlashInfer the call form is for and the note on how the switch turns it on."""

    path: str
    mla: bool = False
    target: str = ""
    note: Optional[str] = None


@dataclass
class Outcome:
    """What a check of the files (and the fixes it wrote) leaves to report."""

    files: List[str] = field(default_factory=list)
    walk_errors: list = field(default_factory=list)
    findings: list = field(default_factory=list)
    run_errors: list = field(default_factory=list)
    changed_files: List[str] = field(default_factory=list)
    fix_errors: list = field(default_factory=list)
    fixed_counts: dict = field(default_factory=dict)  # path -> Counter of the codes fixed there
    diff_text: str = ""  # dry_run: the diff of every group
    changes: list = field(default_factory=list)  # castlint.fixes.FixOutcome.changes: (path, old, new)
    fixes: list = field(default_factory=list)  # (path, castlint.fixes.SourceFix) of each file rewritten
    fixed: List[FixedFile] = field(default_factory=list)  # the changed files, in path order
    not_fixed: List[Tuple[str, int, str]] = field(default_factory=list)  # (path, line, why)
    fix_groups: list = field(default_factory=list)  # (fixed, not_fixed) of each group of files, in order
    warnings: List[str] = field(default_factory=list)  # the walk's (Discovery.warnings)
    # bytes (check_source): the name, the source as checked, and, for a fix, the source after it
    stdin: Optional[str] = None
    source: Optional[bytes] = None
    new_source: Optional[bytes] = None
    stdin_fixed: int = 0  # check_source with a fix: findings the fix removed
    stdin_too_big: bool = False

    def errors(self) -> list:
        return sorted(
            list(self.walk_errors) + list(self.run_errors) + list(self.fix_errors), key=lambda e: (e.path, e.line)
        )

    @property
    def fixed_total(self) -> int:
        return sum(sum(c.values()) for c in self.fixed_counts.values())

    def meta(self, tables, fix: bool = False, show_fixes: bool = False) -> dict:
        """What the renderers (castlint.report) are given besides findings and errors."""
        if self.stdin is not None:
            meta = {"files": 1}
            if self.stdin_too_big:
                meta["step_total_exclude"] = tables.decode_step_exclude_words
                return meta
            text = self.new_source if self.new_source is not None else self.source
            meta["sources"] = {self.stdin: text.decode("utf-8", "replace")}
            if self.new_source is not None:
                meta["fixed"] = self.stdin_fixed
            meta["step_total_exclude"] = tables.decode_step_exclude_words
            return meta
        meta = {
            "files": len(self.files),
            "fixed_files": len(self.changed_files),
            "no_files": not self.files and not self.walk_errors,
            "step_total_exclude": tables.decode_step_exclude_words,
        }
        if fix:
            meta["fixed"] = self.fixed_total
        if show_fixes and fix:
            meta["fixed_by_file"] = self.fixed_counts
        return meta


@dataclass
class Statistics:
    """--statistics as data: a row per rule (most findings first) and the decode step's bytes
    per backend."""

    rows: List[dict]  # {code, name, count, safe, unsafe}
    backends: List[Tuple[str, int]]


@dataclass
class NoqaResult:
    """What --add-noqa did: the comments added, files not written, findings no line could take."""

    added: int = 0
    errors: list = field(default_factory=list)
    notes: List[Tuple[str, str]] = field(default_factory=list)  # (path, why not written)
    unplaced: List[Tuple[str, int, str]] = field(default_factory=list)  # (path, line, code)


class LazyFixer:
    """castlint.fixes.Fixer, loaded in the process that meets the first fixable finding (the
    engine calls a fixer only then): a fixing run over clean files never imports the fix package."""

    def __init__(self, options: FixOptions, describe: bool = False):
        self.options = options
        self.describe = describe  # castlint.fixes.Fixer(describe=True): edits onto the findings, nothing written
        self._fixer = None

    def __call__(self, path, source, stat, ctx, findings, config):
        if self._fixer is None:
            from castlint.fixes import Fixer

            self._fixer = Fixer(self.options, describe=self.describe)
        return self._fixer(path, source, stat, ctx, findings, config)

    def __getstate__(self):  # sent to workers as its options only
        return {"options": self.options, "describe": self.describe, "_fixer": None}


def refuse_options(options: Optional[FixOptions]) -> None:
    """SessionError for fix options the codemods do not know."""
    if options is None:
        return
    if options.flashinfer_api not in API_CHOICES:
        raise SessionError(f"--flashinfer-api must be auto, positional or keyword, got {options.flashinfer_api!r}")
    if options.profile not in PROFILE_CHOICES:
        raise SessionError(f"--profile must be {' or '.join(PROFILE_CHOICES)}, got {options.profile!r}")


def command_line(config_values: Optional[List[str]] = None, **flags) -> CommandLine:
    """CommandLine from --config values (FILE or KEY=VALUE, as ruff reads them) and the other flags."""
    from castlint.settings import split_config_flags

    try:
        config_file, overrides, texts = split_config_flags(config_values)
    except SettingsRefused as exc:
        raise SessionError(str(exc)) from None
    return CommandLine(config_file=config_file, overrides=overrides, override_texts=texts, **flags)


class Session:
    """One run's settings: flags over each file's nearest config (read once per config file).

    paths: the paths the run was given (the first one's settings are the run's own, for
    what is not per file); trusted: more paths that count as checked ones for the
    extend-rules tables a config names (castlint.config.load_settings); per_file=False:
    every file with the run's own settings (the PR bot's way)."""

    def __init__(
        self,
        flags: Optional[CommandLine] = None,
        paths: Sequence[str] = (".",),
        trusted: Sequence[str] = (),
        per_file: bool = True,
    ):
        self.flags = flags or CommandLine()
        self.paths = list(paths) or ["."]
        self.per_file = per_file
        self.resolver = Resolver(self.flags, self.paths, trusted=trusted)
        self.settings()

    def settings(self):
        """(Config, Tables) of the run (its first path's)."""
        try:
            return self.resolver.primary()
        except SettingsRefused as exc:
            raise SessionError(str(exc)) from None

    @property
    def config(self):
        return self.settings()[0]

    @property
    def tables(self):
        return self.settings()[1]

    def for_path(self, path: str):
        try:
            return self.resolver.for_path(path)
        except SettingsRefused as exc:
            raise SessionError(str(exc)) from None

    # -- files ---------------------------------------------------------------------------

    def discover(self, paths: Optional[Sequence[str]] = None, force_exclude: bool = False) -> Discovery:
        """The files under paths, each walked with its own nearest config's exclude and
        respect-gitignore."""
        from castlint.discover import discover

        paths = list(paths or self.paths)
        warnings: List[str] = []
        skipped: List[str] = []
        config, _ = self.settings()
        config_for = (lambda path: self.resolver.for_path(path)[0]) if self.per_file else None
        try:
            files, errors = discover(
                paths, config, warn=warnings.append, force_exclude=force_exclude, skipped=skipped, config_for=config_for
            )
        except SettingsRefused as exc:
            raise SessionError(str(exc)) from None
        return Discovery(files, errors, warnings + skipped, skipped)

    def groups(self, files) -> list:
        """[(config, tables, files)]: each file with its nearest config (one group when they share one)."""
        if not self.per_file:
            config, tables = self.settings()
            return [(config, tables, list(files))]
        try:
            groups = self.resolver.groups(files)
        except SettingsRefused as exc:
            raise SessionError(str(exc)) from None
        if not groups:
            config, tables = self.settings()
            groups = [(config, tables, [])]
        return groups

    def check(
        self,
        paths: Optional[Sequence[str]] = None,
        *,
        fix: Optional[FixOptions] = None,
        jobs: int = 0,
        force_exclude: bool = False,
        follow_symlinks_outside: bool = False,
        progress: Optional[Callable] = None,
        discovery: Optional[Discovery] = None,
        roots: Optional[Sequence[str]] = None,
        edits: Optional[FixOptions] = None,
    ) -> Outcome:
        """Check (and with fix, fix: write, or with fix.dry_run only diff) the files under paths.

        edits (without fix): each fixable finding carries the edits a fix with these options
        would make (Fix.edits); nothing is written.

        progress: called with the number of files to check, returns a context manager whose
        value (a callable taking a count, or None) is told as files are done."""
        refuse_options(fix)
        refuse_options(edits)
        paths = list(paths or self.paths)
        discovery = discovery or self.discover(paths, force_exclude)
        roots = list(roots) if roots is not None else paths
        total = Outcome(walk_errors=list(discovery.errors), warnings=list(discovery.warnings))
        named = [path for path in roots if os.path.isfile(path)]  # parsed even with no trigger word
        for config, tables, files in self.groups(discovery.files):
            part = self._check_group(
                files, tables, config, jobs, fix, roots, named, follow_symlinks_outside, progress, edits
            )
            for name in (
                "files",
                "findings",
                "run_errors",
                "changed_files",
                "fix_errors",
                "changes",
                "fixes",
                "fixed",
                "not_fixed",
            ):
                getattr(total, name).extend(getattr(part, name))
            total.fixed_counts.update(part.fixed_counts)
            total.diff_text += part.diff_text
            if fix is not None:
                total.fix_groups.append((part.fixed, part.not_fixed))
        total.files.sort()
        total.findings.sort(key=lambda f: f.sort_key())
        return total

    def _check_group(
        self, files, tables, config, jobs, options, roots, named, follow_symlinks_outside, progress, edits=None
    ) -> Outcome:
        from castlint.engine import check_paths

        fixer = LazyFixer(options) if options is not None else describer(edits)
        with progress(len(files)) if progress is not None else nullcontext(None) as advance:
            run = check_paths(files, tables, config, jobs=jobs, progress=advance, fixer=fixer, named=named)
        if options is None:
            take_edits(run.results)
            return Outcome(files=list(files), findings=run.findings, run_errors=run.all_errors)
        return _fixed_outcome(run, files, tables, options, roots, follow_symlinks_outside)

    def add_noqa(
        self,
        paths: Optional[Sequence[str]] = None,
        *,
        jobs: int = 0,
        reason: Optional[str] = None,
        force_exclude: bool = False,
        follow_symlinks_outside: bool = False,
        discovery: Optional[Discovery] = None,
        progress: Optional[Callable] = None,
    ) -> NoqaResult:
        """Add `# noqa: CODE` for every current finding (--add-noqa)."""
        from castlint.noqa import add_noqa

        paths = list(paths or self.paths)
        checked = self.check(paths, jobs=jobs, force_exclude=force_exclude, discovery=discovery, progress=progress)
        written = add_noqa(
            checked.findings, roots=paths, follow_symlinks_outside=follow_symlinks_outside, reason=reason
        )
        errors = list(checked.walk_errors) + list(checked.run_errors) + list(written.errors)
        return NoqaResult(
            added=written.added,
            errors=sorted(errors, key=lambda e: (e.path, e.line)),
            notes=list(written.notes),
            unplaced=list(written.unplaced),
        )

    # -- bytes -----------------------------------------------------------------------------

    def check_source(
        self, source: bytes, path: str = "-", *, fix: Optional[FixOptions] = None, edits: Optional[FixOptions] = None
    ) -> Outcome:
        """Check (and with fix, fix in memory) bytes that are not on disk, reported under path.
        edits (without fix): the fixable findings carry their edits, as in check().

        The same pipeline as a file's: one parse, the fixer on the analysis that found the
        findings, the rewritten tree re-checked without parsing it again; in a worker of its
        own, so a file that crashes the parser or runs past a limit is its own error."""
        refuse_options(fix)
        refuse_options(edits)
        from castlint.engine import call_checked, lost_result

        config, tables = self.settings()
        outcome = Outcome(stdin=path, source=source)
        if len(source) > config.max_file_size:
            from castlint.models import FileError

            outcome.stdin_too_big = True
            outcome.run_errors = [
                FileError(
                    path,
                    0,
                    f"stdin holds more than the {config.max_file_size:,}-byte limit (max-file-size); not checked",
                    "read",
                )
            ]
            return outcome
        result, lost = call_checked(_check_bytes, (path, source, tables, config, fix, edits), config, tables)
        if lost is not None:
            result = lost_result(path, lost)
        if fix is None:
            take_edits([result])
        if fix is None or result.fix is None:
            outcome.findings = sorted(result.findings, key=lambda f: f.sort_key())
            outcome.run_errors = list(result.errors)
            if fix is not None:
                outcome.new_source = source
            return outcome
        outcome.new_source = result.fix.new_source
        remaining = result.fix.remaining if result.fix.changed else result.findings
        outcome.findings = sorted(remaining, key=lambda f: f.sort_key())
        outcome.run_errors = list(result.errors)
        if result.fix.changed:
            outcome.stdin_fixed = max(0, len(result.findings) - len(remaining))
        return outcome

    # -- what is reported ------------------------------------------------------------------

    def filter_findings(self, outcome: Outcome, diff_base: Optional[str] = None) -> Outcome:
        """diff_base: only the findings on lines changed since that git revision."""
        outcome.findings = filter_findings(outcome.findings, diff_base)
        return outcome

    def statistics(self, findings) -> Statistics:
        return statistics(findings, self.tables)

    def shown_settings(self) -> dict:
        """--show-settings: the settings in force, after the command line."""
        return shown_settings(self.config, self.tables, self.flags)


def describer(edits: Optional[FixOptions]) -> Optional[LazyFixer]:
    """The fixer of a check that shows its fixes' edits (never written: a dry run)."""
    if edits is None:
        return None
    from dataclasses import replace

    return LazyFixer(replace(edits, dry_run=True), describe=True)


def take_edits(results) -> None:
    """Each result the describing fixer saw gets its findings with their edits (and no fix to write)."""
    for result in results:
        described = getattr(result.fix, "described", None)
        if described is not None:
            by_key = {f.key: f for f in described}
            result.findings = [by_key.get(f.key, f) if f.fix is not None else f for f in result.findings]
        result.fix = None


def _check_bytes(
    path: str, source: bytes, tables, config, options: Optional[FixOptions], edits: Optional[FixOptions] = None
):
    """check_file on bytes (in a worker: castlint.engine.call_checked), with the fixer when fixing."""
    from castlint.engine import check_file

    fixer = LazyFixer(options) if options is not None else describer(edits)
    return check_file(
        path,
        tables,
        config,
        config.cost_model(tables),
        None,
        True,
        source=source,
        fixer=fixer,
        stat=_NOT_ON_DISK if fixer is not None else None,
    )


_NOT_ON_DISK = os.stat_result((0,) * 10)  # what a fix of bytes snapshots (it is never written)


def _fixed_outcome(run, files, tables, options: FixOptions, roots, follow_symlinks_outside) -> Outcome:
    """Write (or diff) the fixes a fixing run computed; what is left comes from re-checking the
    rewritten trees, not from parsing the written files again."""
    outcome = Outcome(files=list(files))
    if not any(r.fix is not None for r in run.results):  # nothing to write: the fix package stays unloaded
        outcome.findings, outcome.run_errors = run.findings, run.all_errors
        return outcome
    from collections import Counter

    from castlint.fixes import write_fixes
    from castlint.mla_names import MLA_CODEMOD

    written = write_fixes(run.results, options, files, roots=roots, follow_symlinks_outside=follow_symlinks_outside)
    changed = sorted(set(written.changed))
    mla_files = {f.path for f in run.findings if f.fix is not None and f.fix.codemod == MLA_CODEMOD}
    for path in changed:
        if path in mla_files:
            from castlint.fixes.target import activation_note, detect_target

            target = detect_target(path, tables, options.flashinfer_version)
            outcome.fixed.append(FixedFile(path, True, target.describe(), activation_note(target, tables)))
        else:
            outcome.fixed.append(FixedFile(path))
    outcome.not_fixed = list(written.notes)
    outcome.changed_files, outcome.fix_errors, outcome.changes = changed, list(written.errors), written.changes
    rewritten = set(changed)
    outcome.fixes = [(r.path, r.fix) for r in run.results if r.fix is not None and r.path in rewritten]
    if options.dry_run:
        outcome.findings, outcome.run_errors, outcome.diff_text = run.findings, run.all_errors, written.diff_text
        return outcome
    findings = [f for f in run.findings if f.path not in rewritten]
    outcome.run_errors = [e for e in run.all_errors if e.path not in rewritten]
    for result in run.results:
        if result.path in rewritten and result.fix is None:  # changed only as a module another fix updates
            findings += [f for f in run.findings if f.path == result.path]
        elif result.path in rewritten:
            findings += result.fix.remaining
            before = Counter(f.code for f in result.findings)
            outcome.fixed_counts[result.path] = before - Counter(f.code for f in result.fix.remaining)
    findings.sort(key=lambda f: f.sort_key())
    outcome.findings = findings
    return outcome


# -- data for the renderers ------------------------------------------------------------------


def statistics(findings, tables) -> Statistics:
    """A row per rule (count, how many `castlint fix` fixes, how many only with --unsafe-fixes),
    most findings first, and the decode step's bytes per backend."""
    from castlint.codes import RULES_BY_CODE
    from castlint.models import step_total

    rows: Dict[str, dict] = {}
    for f in findings:
        row = rows.setdefault(f.code, {"code": f.code, "name": f.name, "count": 0, "safe": 0, "unsafe": 0})
        row["count"] += 1
        if f.fixable:
            row["safe" if f.fix.safety.value == "safe" else "unsafe"] += 1
    ordered = sorted(rows.values(), key=lambda r: (-r["count"], r["code"]))
    for row in ordered:  # the registry's name (a runtime finding's own may differ)
        if row["code"] in RULES_BY_CODE:
            row["rule_name"] = RULES_BY_CODE[row["code"]].name
    total = step_total(findings, tables.decode_step_exclude_words)
    return Statistics(ordered, list(total.backends))


def shown_settings(config, tables, flags: Optional[CommandLine] = None) -> dict:
    """The configuration in force, after the command line (--show-settings)."""
    from castlint.codes import enabled_codes

    model = config.cost_model(tables)
    return {
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
        "model": {
            "name": model.name,
            "layers": model.layers,
            "pool_tokens": model.pool_tokens,
            "kv_lora_rank": model.kv_lora_rank,
            "rope_dim": model.rope_dim,
            "kv_dtype": model.kv_dtype,
            "compute_dtype": model.compute_dtype,
        },
    }


def filter_findings(findings, diff_base: Optional[str]) -> list:
    if diff_base:
        from castlint.gitdiff import GitDiffError, filter_to_changed_lines

        try:
            findings = filter_to_changed_lines(findings, diff_base)
        except GitDiffError as exc:
            raise SessionError(str(exc)) from None
    return findings


# -- one call --------------------------------------------------------------------------------


def check(paths: Sequence[str] = (".",), flags: Optional[CommandLine] = None, **options) -> Outcome:
    """Check paths with their settings (flags over each file's nearest config)."""
    return Session(flags, paths).check(paths, **options)


def check_source(
    source: bytes, path: str = "-", flags: Optional[CommandLine] = None, fix: Optional[FixOptions] = None
) -> Outcome:
    """Check (with fix: fix in memory) bytes reported under path, with path's settings."""
    return Session(flags, [path]).check_source(source, path, fix=fix)


def fix(
    paths: Sequence[str] = (".",), options: Optional[FixOptions] = None, flags: Optional[CommandLine] = None, **kwargs
) -> Outcome:
    """Check and fix paths (options.dry_run: only the diff, nothing written)."""
    return Session(flags, paths).check(paths, fix=options or FixOptions(), **kwargs)
