"""Codemods and the safe-write pipeline: findings (with their fix sites) -> edits -> atomic writes.

A rule that can fix a site attaches the site to its finding (`Fix.site`); each
codemod (castlint.fixes.base.Codemod, registered by name) rewrites the sites of
the findings whose `Fix.codemod` names it. A file is parsed once: its analysis
gives the findings, and the codemods rewrite that tree. Only when a codemod has
already changed the tree and another still has work is the new tree analysed
again (no parse: libcst metadata on the tree itself). The result must compile,
or the file is left alone. `write_fixes` previews (`--diff`) or writes atomically.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import List, Optional, Sequence, Tuple

from castlint.common.diffs import unified_diff_text
from castlint.common.encoding import source_encoding
from castlint.config import Config
from castlint.fixes.base import (
    API_CHOICES,
    PROFILE_CHOICES,
    Codemod,
    CodemodResult,
    FixError,
    FixOptions,
    SourceFix,
    codemod_named,
    registered_codemods,
)
from castlint.fixes.write import keep_line_endings, outside, remove_stale_temps, roots_of, write_or_error
from castlint.models import FileError
from castlint.tables import Tables

__all__ = [
    "API_CHOICES",
    "Codemod",
    "CodemodResult",
    "FixError",
    "FixOptions",
    "FixOutcome",
    "SourceFix",
    "Fixer",
    "apply_fixes",
    "codemod_named",
    "fix_files",
    "fix_source",
    "unified_diff",
    "write_fixes",
]


@dataclass
class FixOutcome:
    changed: List[str] = field(default_factory=list)
    errors: List[FileError] = field(default_factory=list)
    diff_text: str = ""
    notes: List[Tuple[str, int, str]] = field(default_factory=list)  # (path, line, why not fixed)
    # (path, bytes before or None for a file the fix adds, bytes after) of each changed path, in
    # `changed`'s order: what a PR description or a patch of the run is made from (castlint.pr)
    changes: List[Tuple[str, Optional[bytes], bytes]] = field(default_factory=list)


def fix_source(
    source: bytes, path: str, tables: Tables, options: Optional[FixOptions] = None, config: Optional[Config] = None
) -> SourceFix:
    """Analyse one file's bytes once and apply every codemod. Raises FixError if the result would not be valid."""
    from castlint.engine import module_context, parse, run_rules

    config = config or Config()
    check_options(options or FixOptions())
    module = parse(source, path)
    ctx = module_context(module, path, tables, config.cost_model(tables))
    return apply_fixes(source, ctx, run_rules(ctx, module.code, config), options, config)


def check_options(options: FixOptions) -> None:
    if options.flashinfer_api not in API_CHOICES:
        raise FixError(0, f"--flashinfer-api must be one of {', '.join(API_CHOICES)}, got {options.flashinfer_api!r}")
    if options.profile not in PROFILE_CHOICES:
        raise FixError(0, f"--profile must be one of {', '.join(PROFILE_CHOICES)}, got {options.profile!r}")


def apply_fixes(
    source: bytes,
    ctx,
    findings: list,
    options: Optional[FixOptions] = None,
    config: Optional[Config] = None,
    recheck: bool = True,
) -> SourceFix:
    """Apply the codemods to the module ctx analysed, for the fixable findings made on it.

    With recheck, the new source is re-checked (its findings in `remaining`) on the
    rewritten tree; a run that only shows the edits does not need it."""
    from castlint.engine import module_context, run_rules

    options = options or FixOptions()
    config = config or Config()
    result = SourceFix(source=source, new_source=source)
    module = ctx.analysis.module
    for codemod in registered_codemods():
        wanted = _wanted(findings, codemod)
        if not wanted:
            continue
        if module is not ctx.analysis.module:  # an earlier codemod changed the tree: find the sites again
            ctx = module_context(module, ctx.path, ctx.tables, ctx.cost_model, copy=True)
            findings = run_rules(ctx, module.code, config)
            module = ctx.analysis.module
            wanted = _wanted(findings, codemod)
        done = codemod.apply(module, ctx, wanted, options)
        result.applied += done.applied
        result.skipped += done.skipped
        result.companions.update(done.companions)
        if done.module is not module:
            result.fixed += wanted if done.fixed is None else done.fixed
            module = done.module
    new_source = keep_line_endings(source, module.bytes)  # the file's line endings, its final byte too
    if new_source == source:
        result.remaining = list(findings)
        return result
    try:
        compile(new_source, ctx.path, "exec", dont_inherit=True)
    except (SyntaxError, ValueError) as exc:
        raise FixError(
            getattr(exc, "lineno", None) or 0, f"fix produced invalid code ({exc}); file left untouched"
        ) from exc
    result.new_source = new_source
    if not recheck:
        return result
    after = module_context(module, ctx.path, ctx.tables, ctx.cost_model, copy=True)
    result.remaining = run_rules(after, module.code, config)
    return result


class Fixer:
    """What a fixing run (castlint.engine.check_paths(fixer=...)) calls with each fixable
    file's analysis: the codemods applied to it, and the snapshot its write checks against.

    describe: the run only shows the fixes (json, sarif, rdjson, the PR bot): the fix's
    edits go onto the findings it serves (SourceFix.described, castlint.fixes.edit_set),
    nothing is re-checked, and a fix that cannot be made leaves its findings without
    edits rather than failing the file."""

    def __init__(self, options: FixOptions, describe: bool = False):
        check_options(options)
        self.options = options
        self.describe = describe

    def __call__(self, path: str, source: bytes, stat, ctx, findings: list, config: Config):
        """(SourceFix, None), or (None, the FileError that says why the file is left alone)."""
        if self.describe:
            return self._described(source, ctx, findings, config), None
        from castlint.fixes.write import Snapshot

        try:
            fix = apply_fixes(source, ctx, findings, self.options, config)
        except FixError as exc:
            return None, FileError(path, exc.line, str(exc), "fix")
        fix.snapshot = Snapshot.of(path, source, stat)
        return fix, None

    def _described(self, source: bytes, ctx, findings: list, config: Config) -> Optional[SourceFix]:
        from castlint.fixes.edit_set import findings_with_edits

        try:
            fix = apply_fixes(source, ctx, findings, self.options, config, recheck=False)
            fix.described = findings_with_edits(findings, fix)
        except Exception:  # noqa: BLE001 - a fix that cannot be made: the findings keep their label only
            return None
        return fix


def _wanted(findings: list, codemod: Codemod) -> list:
    return [f for f in findings if f.fix is not None and f.fix.codemod == codemod.name and f.fix.site is not None]


def unified_diff(path: str, old: bytes, new: bytes, encoding: Optional[str] = None) -> str:
    """The diff of a fix, with the path as the user named it (relative when under the cwd)."""
    import os

    rel = os.path.relpath(path)
    shown = rel if not rel.startswith("..") else path.lstrip("/")
    encoding = encoding or source_encoding(old)
    encoding = "utf-8" if encoding == "utf-8-sig" else encoding  # the BOM shows, as in the file
    return unified_diff_text(shown, old.decode(encoding, errors="replace"), new.decode(encoding, errors="replace"))


def write_fixes(
    results: Sequence,
    options: FixOptions,
    files: Sequence[str],
    roots: Optional[Sequence[str]] = None,
    follow_symlinks_outside: bool = False,
) -> FixOutcome:
    """Preview or write the fixes a fixing run computed (FileResult.fix), one file at a time, in path order.

    roots: the paths the run was given (default: files). A file that is a symlink (or
    lies under one) whose target is outside every root is not written unless
    follow_symlinks_outside; it gets a note instead. Before writing, castlint's own
    temp files left by a killed run are removed from the folders of the files."""
    import os

    outcome = FixOutcome()
    diffs = []
    real_roots = roots_of(files if roots is None else roots)
    fixed = [r for r in sorted(results, key=lambda r: r.path) if r.fix is not None]
    if not options.dry_run and fixed:
        remove_stale_temps({os.path.dirname(os.path.realpath(r.path)) for r in fixed})
    for result in fixed:
        path, fix = result.path, result.fix
        outcome.notes += [(path, line, why) for line, why in fix.skipped]
        if not fix.changed:
            continue
        target = None if follow_symlinks_outside else outside(path, real_roots)
        if target is not None:
            outcome.notes.append(
                (
                    path,
                    0,
                    f"not written: a symlink to {target}, outside the checked paths "
                    "(--follow-symlinks-outside writes through it)",
                )
            )
            continue
        if options.dry_run:
            diffs.append(unified_diff(path, fix.source, fix.new_source))
            outcome.changed.append(path)
            outcome.changes.append((path, fix.source, fix.new_source))
            continue
        error = write_or_error(path, fix.new_source, fix.snapshot)
        if error is not None:
            outcome.errors.append(error)
            continue
        outcome.changed.append(path)
        outcome.changes.append((path, fix.source, fix.new_source))
    _write_companions(fixed, options, outcome, diffs)
    outcome.diff_text = "".join(diffs)
    return outcome


def _write_companions(fixed: Sequence, options: FixOptions, outcome: FixOutcome, diffs: list) -> None:
    """The modules the fixes add to the tree (one per path, however many files need it):
    written when missing or different, previewed with --diff."""
    import os

    from castlint.fixes.write import create_file, read_snapshot

    wanted = {}
    for result in fixed:
        if result.fix.changed and result.path in outcome.changed:
            for path, data in result.fix.companions.items():
                wanted.setdefault(path, (keep_line_endings(result.fix.source, data), result.path))
    for path, (data, fixed_file) in sorted(wanted.items()):
        old = None
        if os.path.islink(path):
            outcome.notes.append(
                (
                    fixed_file,
                    0,
                    f"{path} is a symlink: the module the fix adds is not written there; the fixed file imports it",
                )
            )
            continue
        if os.path.exists(path):
            old, snapshot = read_snapshot(path)
            if old == data:
                continue
        if options.dry_run:
            diffs.append(unified_diff(path, old or b"", data))
            outcome.changed.append(path)
            outcome.changes.append((path, old, data))
            continue
        try:
            if old is None:
                create_file(path, data, like=fixed_file)
            else:
                error = write_or_error(path, data, snapshot)
                if error is not None:
                    outcome.errors.append(error)
                    continue
        except OSError as exc:
            outcome.errors.append(
                FileError(path, 0, f"cannot write the module the fix adds: {exc.strerror or exc}", "fix")
            )
            continue
        outcome.changed.append(path)
        outcome.changes.append((path, old, data))


def fix_files(
    files: Sequence[str],
    tables: Tables,
    config: Config,
    options: FixOptions,
    jobs: int = 0,
    roots: Optional[Sequence[str]] = None,
    follow_symlinks_outside: bool = False,
) -> FixOutcome:
    """Check and fix files in one pass (each fixable file parsed once), then preview or write."""
    from castlint.engine import check_paths

    run = check_paths(files, tables, config, jobs=jobs, fixer=Fixer(options))
    outcome = write_fixes(run.results, options, files, roots=roots, follow_symlinks_outside=follow_symlinks_outside)
    outcome.errors += [e for result in run.results for e in result.errors if e.kind == "fix"]
    return outcome
