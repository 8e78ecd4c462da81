"""Codemods and the safe-write pipeline: findings -> edits -> verified, atomic writes.

`fix_source` applies the codemods to one file's bytes (the FlashInfer MLA rewrite,
then cast-after-gather), keeping every byte it does not mean to change. The result
must parse (libcst and compile()) or the file is left alone. `fix_files` runs it
over many files, previews (`--diff`) or writes atomically.
"""
from __future__ import annotations

import difflib
from dataclasses import dataclass, field
from typing import List, Optional, Sequence, Tuple

import libcst as cst

from castlint.checks import FileContext
from castlint.config import Config
from castlint.engine import module_context, parse, run_rules
from castlint.fixes import cast_after_gather, flashinfer_mla
from castlint.fixes.target import detect_target
from castlint.fixes.write import StaleFileError, atomic_write, read_snapshot
from castlint.models import FileError
from castlint.tables import Tables

API_CHOICES = ("auto", "positional", "keyword")


@dataclass
class FixOptions:
    unsafe: bool = False
    dry_run: bool = False
    flashinfer_api: str = "auto"
    flashinfer_version: Optional[str] = None  # overrides the pin read from rules/sglang.toml


@dataclass
class SourceFix:
    source: bytes
    new_source: bytes
    applied: List[str] = field(default_factory=list)
    skipped: List[Tuple[int, str]] = field(default_factory=list)

    @property
    def changed(self) -> bool:
        return self.new_source != self.source


@dataclass
class FixOutcome:
    changed: List[str] = field(default_factory=list)
    errors: List[FileError] = field(default_factory=list)
    diff_text: str = ""
    notes: List[Tuple[str, int, str]] = field(default_factory=list)  # (path, line, why not fixed)


class FixError(Exception):
    def __init__(self, line: int, message: str):
        super().__init__(message)
        self.line = line


def _context(module: cst.Module, path: str, tables: Tables, config: Config) -> Tuple[Optional[FileContext], set]:
    """The analysis codemods work on, and the (code, line, col) of findings to fix.

    Returns (None, set()) when nothing in the file is fixable, which is most files."""
    ctx = module_context(module, path, tables, config.cost_model(tables))
    findings = run_rules(ctx, module.code, config)
    allowed = {(f.code, f.start.line, f.start.column) for f in findings if f.fixable}
    if not allowed:
        return None, allowed
    return ctx, allowed


def fix_source(source: bytes, path: str, tables: Tables, options: Optional[FixOptions] = None,
               config: Optional[Config] = None) -> SourceFix:
    """Apply every codemod to one file's bytes. Raises FixError if the result would not be valid."""
    options = options or FixOptions()
    config = config or Config()
    if options.flashinfer_api not in API_CHOICES:
        raise FixError(0, f"--flashinfer-api must be one of {', '.join(API_CHOICES)}, got {options.flashinfer_api!r}")
    module = parse(source, path)
    result = SourceFix(source=source, new_source=source)
    target = detect_target(path, tables, options.flashinfer_version)
    api = options.flashinfer_api
    if api == "auto":
        api = "positional"  # what every pinned FlashInfer accepts (0.7.x with a DeprecationWarning)

    ctx, allowed = _context(module, path, tables, config)
    if ctx is None:
        return result
    module2, applied, skipped = flashinfer_mla.rewrite(module, ctx, allowed, target, api)
    result.applied += applied
    result.skipped += skipped
    if module2 is not module:
        module2 = cst.parse_module(module2.bytes)  # fresh tree (and metadata) for the next codemod
        ctx, allowed = _context(module2, path, tables, config)
    module3 = module2
    if ctx is not None and any(code == "CL003" for code, _, _ in allowed):
        module3, applied, skipped = cast_after_gather.rewrite(module2, ctx, allowed, options.unsafe)
        result.applied += applied
        result.skipped += skipped

    new_source = module3.bytes
    if new_source == source:
        return result
    try:
        cst.parse_module(new_source)
        compile(new_source, path, "exec", dont_inherit=True)
    except (cst.ParserSyntaxError, SyntaxError, ValueError) as exc:
        line = getattr(exc, "lineno", None) or getattr(exc, "raw_line", 0) or 0
        raise FixError(line, f"fix produced invalid code ({exc}); file left untouched") from exc
    result.new_source = new_source
    return result


def unified_diff(path: str, old: bytes, new: bytes, encoding: str = "utf-8") -> str:
    import os

    rel = os.path.relpath(path)
    path = rel if not rel.startswith("..") else path.lstrip("/")
    a = old.decode(encoding, errors="replace").splitlines(keepends=True)
    b = new.decode(encoding, errors="replace").splitlines(keepends=True)
    lines = list(difflib.unified_diff(a, b, fromfile=f"a/{path}", tofile=f"b/{path}"))
    return "".join(line if line.endswith("\n") else line + "\n\\ No newline at end of file\n" for line in lines)


def _prepare(args):
    """Read one file and compute its fix (runs in a worker process); writes nothing."""
    path, tables, config, options, groups = args
    from castlint.prefilter import has_trigger
    from castlint.engine import read_source

    try:
        read_source(path, config.max_file_size)  # size / NUL / regular-file checks
        source, snapshot = read_snapshot(path)
    except (OSError, ValueError) as exc:
        return path, None, None, FileError(path, 0, f"cannot read: {getattr(exc, 'strerror', None) or exc}", "read")
    if not has_trigger(source, groups):
        return path, None, None, None
    try:
        fixed = fix_source(source, path, tables, options, config)
    except SyntaxError as exc:
        return path, None, None, FileError(path, exc.lineno or 1, exc.msg, "parse")
    except FixError as exc:
        return path, None, None, FileError(path, exc.line, str(exc), "fix")
    except Exception as exc:  # a codemod bug must not lose data or stop the run
        return path, None, None, FileError(path, 1, f"internal error in fix: {type(exc).__name__}: {exc}", "internal")
    return path, fixed, snapshot, None


def fix_files(files: Sequence[str], tables: Tables, config: Config, options: FixOptions,
              jobs: int = 0, roots: Optional[Sequence[str]] = None,
              follow_symlinks_outside: bool = False) -> FixOutcome:
    """Compute fixes (in parallel), then preview or write them one file at a time, in path order.

    roots: the paths the run was given (default: files). A file that is a symlink (or
    lies under one) whose target is outside every root is not written unless
    follow_symlinks_outside; it gets a note instead. Before writing, castlint's own
    temp files left by a killed run are removed from the folders of the files."""
    import os
    from concurrent.futures import ProcessPoolExecutor

    from castlint.engine import check_paths, encoded_triggers, worker_guard
    from castlint.fixes.write import outside, remove_stale_temps, roots_of

    outcome = FixOutcome()
    groups = encoded_triggers(tables)
    # The fast, cached check says which files have anything fixable; only those get the
    # full-module analysis the codemods need. Read/parse errors are reported by the check.
    fixable = sorted({f.path for f in check_paths(files, tables, config, jobs=jobs).findings if f.fixable})
    work = [(path, tables, config, options, groups) for path in fixable]
    jobs = jobs or config.jobs or (os.cpu_count() or 1)
    if jobs > 1 and len(work) >= 16:
        with ProcessPoolExecutor(max_workers=jobs, initializer=worker_guard, initargs=(os.getpid(),)) as pool:
            prepared = list(pool.map(_prepare, work, chunksize=8))
    else:
        prepared = [_prepare(item) for item in work]
    diffs = []
    real_roots = roots_of(files if roots is None else roots)
    if not options.dry_run:
        remove_stale_temps({os.path.dirname(os.path.realpath(p)) for p in files})
    for path, fixed, snapshot, error in sorted(prepared, key=lambda item: item[0]):
        if error is not None:
            outcome.errors.append(error)
            continue
        if fixed is None:
            continue
        for line, why in fixed.skipped:
            outcome.notes.append((path, line, why))
        if not fixed.changed:
            continue
        target = None if follow_symlinks_outside else outside(path, real_roots)
        if target is not None:
            outcome.notes.append((path, 0, f"not written: a symlink to {target}, outside the checked paths "
                                           "(--follow-symlinks-outside writes through it)"))
            continue
        if options.dry_run:
            encoding = cst.parse_module(fixed.source).encoding
            diffs.append(unified_diff(path, fixed.source, fixed.new_source, encoding))
            outcome.changed.append(path)
            continue
        try:
            atomic_write(path, fixed.new_source, snapshot)
        except StaleFileError as exc:
            outcome.errors.append(FileError(path, 0, str(exc), "fix"))
            continue
        except OSError as exc:
            outcome.errors.append(FileError(path, 0, f"cannot write: {exc.strerror or exc}", "fix"))
            continue
        outcome.changed.append(path)
    outcome.diff_text = "".join(diffs)
    return outcome
