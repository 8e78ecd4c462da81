"""Files -> findings: read, prefilter, prune, parse, run the rules, apply suppressions.

A whole-tree check is dominated by libcst (parse and metadata), so the engine
gives it as little as it can, cheapest test first:

1. the text prefilter (castlint.prefilter: the rules' trigger words): most files name no pool at all
   (they are only checked to parse, with CPython's parser: syntax_error);
2. castlint.prune with the C parser: the file may hold no candidate at all, or
   only some of its functions and methods matter (the rest become stubs);
3. libcst on what is left, with line numbers mapped back to the file.

Unchanged files come from .castlint_cache/ (castlint.cache). Files are spread
over -j/--jobs worker processes; output is sorted by path, line and column
whatever the parallelism.

Files are parsed and analysed only in worker processes (castlint.workers), -j 1
included: a file that crashes libcst's native parser, runs past file-timeout or
past max-file-memory costs only its own FileError, never the run. Workers exit
when the process that started them dies (worker_guard), so a killed run never
leaves workers holding the caller's pipes, and SIGINT/SIGTERM kill them at once.

Nothing here writes to a checked file. Every per-file problem (unreadable,
undecodable, too big, a syntax error, an analyzer bug) becomes a FileError that
names the file and line, and the rest of the tree is still checked.
"""

from __future__ import annotations

import errno
import os
import re
import stat
import sys
from dataclasses import dataclass, field
from typing import Callable, Dict, List, Optional, Sequence, Tuple

from castlint.common.encoding import source_text
from castlint.config import Config, CostModel
from castlint.models import FileError, FileResult
from castlint.prefilter import has_trigger
from castlint.tables import Tables
from castlint.triggers import may_allocate_arenas, may_plan_by_arity
from castlint.workers import Limits, Lost, Pool, cap_jobs, default_memory, worker_guard  # noqa: F401

# libcst and the rules are imported only when a file needs them: a warm run,
# answered from the cache, never pays for them.


@dataclass
class Run:
    results: List[FileResult] = field(default_factory=list)
    errors: List[FileError] = field(default_factory=list)
    stats: Dict[str, int] = field(default_factory=dict)  # cached, skipped, nothing, pruned, full

    @property
    def findings(self):
        out = [f for r in self.results for f in r.findings]
        return sorted(out, key=lambda f: f.sort_key())

    @property
    def all_errors(self):
        out = list(self.errors) + [e for r in self.results for e in r.errors]
        return sorted(out, key=lambda e: (e.path, e.line, e.message))


class ReadError(ValueError):
    """A file that cannot be checked, with the line the problem is on (0: the file)."""

    def __init__(self, message: str, line: int = 0):
        super().__init__(message)
        self.line = line


def read_source(path: str, max_size: int) -> bytes:
    """The file's bytes, or FileError-worthy OSError/ValueError.

    Opened non-blocking and checked with fstat, so a FIFO or device never hangs
    the run, even if it replaces the file after discovery.
    """
    return read_source_and_stat(path, max_size)[0]


def read_source_and_stat(path: str, max_size: int) -> tuple:
    """(bytes, os.stat_result of the open file after the read): what a fix's atomic
    write checks the file against (castlint.fixes.write.Snapshot)."""
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0)
    fd = os.open(path, flags)
    try:
        st = os.fstat(fd)
        if stat.S_ISDIR(st.st_mode):
            raise IsADirectoryError(errno.EISDIR, "is a directory", path)
        if not stat.S_ISREG(st.st_mode):
            raise ReadError(f"not a regular file ({_file_kind(st.st_mode)}); not read")
        if st.st_size > max_size:
            raise ReadError(
                f"file is {st.st_size:,} bytes, over the {max_size:,}-byte limit (max-file-size); not checked"
            )
        chunks = []
        remaining = max_size + 1
        with os.fdopen(fd, "rb", closefd=True) as fh:
            fd = -1
            while remaining > 0:
                chunk = fh.read(remaining)
                if not chunk:
                    break
                chunks.append(chunk)
                remaining -= len(chunk)
            st = os.fstat(fh.fileno())
        data = b"".join(chunks)
    finally:
        if fd >= 0:
            os.close(fd)
    if len(data) > max_size:
        raise ReadError(f"file grew past the {max_size:,}-byte limit (max-file-size) while being read; not checked")
    nul = data.find(b"\0")
    if nul >= 0:
        raise ReadError("file contains NUL bytes (binary?); not checked", data.count(b"\n", 0, nul) + 1)
    return data, st


def _file_kind(mode: int) -> str:
    if stat.S_ISFIFO(mode):
        return "a FIFO"
    if stat.S_ISSOCK(mode):
        return "a socket"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    return "not a plain file"


def check_decodable(source: bytes) -> None:
    """Raise ReadError (with the line) unless the bytes decode as the file declares."""
    head = source[:400]
    if b"coding" not in head:  # the common case: UTF-8 (maybe with a BOM)
        try:
            source.decode("utf-8")
            return
        except UnicodeDecodeError as exc:
            line = source.count(b"\n", 0, exc.start) + 1
            raise ReadError(
                f"cannot decode as UTF-8 (byte 0x{source[exc.start]:02x}) and no "
                f"encoding cookie declares another encoding",
                line,
            ) from None
    import io
    import tokenize

    try:
        encoding, _ = tokenize.detect_encoding(io.BytesIO(source).readline)
    except SyntaxError as exc:  # unknown or contradictory cookie
        raise ReadError(f"bad encoding declaration: {exc}", 1) from None
    try:
        source.decode(encoding)
    except UnicodeDecodeError as exc:
        line = source.count(b"\n", 0, exc.start) + 1
        raise ReadError(f"cannot decode as {encoding} (the encoding the file declares)", line) from None
    except LookupError:
        raise ReadError(f"unknown encoding {encoding!r} in the encoding declaration", 1) from None


def parse(source: bytes, path: str):
    import libcst as cst

    try:
        return cst.parse_module(source)
    except cst.ParserSyntaxError as exc:
        message = f"syntax error: {exc.message}"
        line, column = exc.raw_line, exc.raw_column + 1
        try:  # CPython's parser pins the location better than libcst's
            compile(source, path, "exec", dont_inherit=True)
        except SyntaxError as py_exc:
            if py_exc.lineno:
                line, column = py_exc.lineno, py_exc.offset or 1
        except Exception:
            pass
        raise SyntaxError(message + _python2_hint(source, line), (path, line, column, "")) from exc
    except (UnicodeDecodeError, LookupError) as exc:
        raise SyntaxError(f"cannot decode: {exc}", (path, 1, 1, "")) from exc


def syntax_error(path: str, source: bytes) -> Optional[FileError]:
    """The FileError of a file Python cannot parse, or None.

    Every file is checked, the ones no rule can fire on too (a walk's as well as a named
    one's), so that castlint never says "All checks passed" about a broken file. Those are
    most of a tree, so the check is CPython's own parser without the Python-level tree
    (symtable: about a third cheaper than ast.parse, far cheaper than libcst); only when it
    fails does ast.parse decide, and word the message. (symtable also rejects a few things
    that parse, a module-level nonlocal for one: those pass, as in a file with trigger words.)"""
    import warnings

    from castlint.common import pyast

    with warnings.catch_warnings():  # an invalid escape warns (SyntaxWarning from 3.12), and -W error
        warnings.simplefilter("ignore")  # would make it a syntax error: neither is the file's fault here
        if not pyast.parsed(source):  # (the pruner's parse of the same bytes, when it made one)
            import symtable

            try:
                symtable.symtable(source, path, "exec")
                return None
            except Exception:  # noqa: BLE001 - ast decides: a syntax error, or none (too deep, ...)
                pass
        return _ast_syntax_error(path, source)


def _ast_syntax_error(path: str, source: bytes) -> Optional[FileError]:
    from castlint.common import pyast

    try:
        pyast.parse(source)
    except SyntaxError as exc:
        line = exc.lineno or 1
        return FileError(path, line, f"syntax error: {exc.msg}" + _python2_hint(source, line), "parse")
    except (ValueError, UnicodeDecodeError) as exc:  # a NUL byte, an undecodable literal
        return FileError(path, 1, f"syntax error: {exc}", "parse")
    except (RecursionError, MemoryError, OverflowError):
        return None  # too deep for ast: not a syntax error, and no rule fires on it anyway
    return None


_PY2 = ("print ", "print\t", "exec ", "except ", "raise ", "ur'", 'ur"')


def _python2_hint(source: bytes, line: int) -> str:
    """' (Python 2 code?)' when the offending line looks like Python 2."""
    try:
        text = source.splitlines()[max(line - 1, 0)].decode("utf-8", "replace").strip()
    except IndexError:
        return ""
    py2 = text.startswith(("print ", "print\t", "exec ")) and not text.startswith(("print(", "exec("))
    py2 |= text.startswith("except ") and "," in text and " as " not in text
    py2 |= text.startswith("raise ") and "," in text.split("#")[0] and "(" not in text.split(",")[0]
    py2 |= text.endswith("L") and text[:-1][-1:].isdigit()
    py2 |= "<>" in text or text.startswith(("ur'", 'ur"')) or "`" in text
    return " (this looks like Python 2 code; castlint reads Python 3)" if py2 else ""


def module_context(
    module,
    path: str,
    tables: Tables,
    cost_model: CostModel,
    pruned=None,
    copy: bool = False,
    own_lines: Optional[int] = None,
):
    """The FileContext (metadata + ModuleAnalysis) that rules and codemods read.

    copy: analyse a copy of module (a tree a codemod built may share nodes; the
    analysis's `module` is then the copy); own_lines: see run_rules."""
    import libcst as cst

    from castlint.analysis import ModuleAnalysis
    from castlint.analysis.context import FileContext

    wrapper = cst.MetadataWrapper(module, unsafe_skip_copy=not copy)
    if pruned is None:
        analysis = ModuleAnalysis(wrapper, tables, own_lines=own_lines)
    else:
        analysis = ModuleAnalysis(wrapper, tables, pruned=pruned, own_lines=own_lines)
    return FileContext(path=path, analysis=analysis, tables=tables, cost_model=cost_model)


def run_rules(ctx, source_text: str, config: Config, own_lines: Optional[int] = None) -> list:
    """Every rule on one FileContext, then suppressions and select/ignore. own_lines: the
    file's own lines when definitions of other files were linked after them
    (castlint.analysis.tree_index): findings in those are theirs, not this file's."""
    from castlint.checks import all_rules

    raw = []
    for rule in all_rules():
        if rule.kind == "check":  # every rule runs: a suppression of a disabled one is still used
            raw.extend(rule.check(ctx))
    if own_lines is not None:
        raw = [f for f in raw if f.start.line <= own_lines]
    return finish(raw, ctx.path, source_text, config)


def analyze_module(
    module,
    path: str,
    source_text: str,
    tables: Tables,
    config: Config,
    cost_model: CostModel,
    pruned=None,
    own_lines: Optional[int] = None,
    keep=None,
) -> list:
    """Findings for one parsed module. pruned: the castlint.prune.Pruned it was parsed from
    (then source_text must be the whole file's text, for suppressions); own_lines: see
    run_rules (source_text is then the file's own text)."""
    from castlint.analysis import cast_motion
    from castlint.analysis.pool_classes import file_tables

    tables = file_tables(source_text.encode("utf-8", "surrogateescape"), tables)  # the file's own accessors
    ctx = module_context(module, path, tables, cost_model, pruned, own_lines=own_lines)
    found = run_rules(ctx, source_text, config, own_lines)
    if pruned is not None and cast_motion.pruned_undecided(ctx.analysis):
        raise PrunedTooFar(path)
    if keep is not None:
        keep.append(ctx)
    return found


class PrunedTooFar(Exception):
    """A proof on a pruned copy met a member whose body the pruner dropped: only the whole file
    can decide it (the caller analyses the whole file)."""


def link_tree(path: str, source: bytes, tables: Tables, config: Config, result: FileResult) -> tuple:
    """(source, tables, own_lines) with the definitions of the tree that the file uses
    linked after its own code (castlint.analysis.tree_index); own_lines is None when
    nothing was linked. The linked files are recorded in result.links for the cache."""
    from castlint.analysis import tree_index
    from castlint.analysis.pool_classes import with_accessors

    if not config.follow_imports:
        return source, tables, None
    linked_source, own_lines, linked = tree_index.linked_source(
        path, source, tables, own_pool_possible(source, tables), mode=config.follow_imports
    )
    if not linked:
        return source, tables, None
    result.links = sorted(set(result.links) | set(linked.paths))
    kinds = dict(linked.kinds)  # (what each returns: a layer, a (k, v) pair)
    tables = with_accessors(tables, [(name, kinds[name]) if name in kinds else name for name in linked.learned])
    return (linked_source, tables, own_lines) if linked.text else (source, tables, None)


def learned_tables(path: str, source: bytes, tables: Tables, result: Optional[FileResult] = None) -> Tables:
    """tables with the accessors that the file's own pool classes define and those that the
    engines it imports teach (castlint.analysis.pool_classes: `[learn] packages`, read from
    the checked tree's own package or the installed copy on sys.path). The files that teach
    an accessor the file calls are recorded in result.links for the cache."""
    from castlint.analysis import pool_classes

    own = pool_classes.file_tables(source, tables, shaped=False)
    accessors, teachers, dtypes = pool_classes.engine_learned_dtypes(path, source, tables)
    if not accessors:
        return pool_classes.with_shaped_getters(source, own)
    if result is not None:
        result.links = sorted(set(result.links) | set(teachers))
    # (the getters by shape last: those the engine's pool classes teach keep what they return)
    return pool_classes.with_shaped_getters(source, pool_classes.with_accessors(own, accessors, dtypes=dtypes))


def wanted(path: str, source: bytes, triggers, tables: Tables, config: Config) -> bool:
    """Can a rule fire on the file? Its trigger words (the prefilter), or what the text
    alone does not show: definitions of the tree it imports that bring it a pool
    (follow-imports), its own pool classes, accessors its engine's pool classes teach."""
    if has_trigger(source, tuple(triggers)) or may_link(path, source, tables, config):
        return True
    if may_plan_by_arity(source, tables):  # CL002 by the plan's arity, no wrapper named (a mixin module)
        return True
    from castlint.analysis import pool_classes

    if config.follow_imports == "callers":
        from castlint.analysis import tree_index

        if tree_index.may_link_imported_casts(path, source, tables):
            return True  # it calls a cast a sibling module holds (link_tree appends it)
    if not pool_classes.converts_something(source, tables):
        return False  # each test below needs a conversion in the file
    if may_allocate_arenas(source, tables):  # per-layer arenas: whole pools under any name
        return True
    if pool_classes.shaped_getters(source, tables):  # a getter of the engine's pool by its shape
        return True
    if config.follow_imports == "callers":
        from castlint.analysis import tree_index

        if tree_index.may_link_callers(path, source, tables):
            return True  # a helper its sibling modules hand a pool (link_tree appends their calls)
        if tree_index.may_link_bases(path, source, tables):
            return True  # an override a sibling module's base class calls every step (link_tree appends it)
    return pool_classes.may_learn(source, tables) or pool_classes.may_call_learned(path, source, tables)


def finish(raw: list, path: str, source_text: str, config: Config) -> list:
    """Apply suppressions, let the meta rules report on them (CL900: unused ones), drop
    disabled codes, sort."""
    from castlint import suppressions
    from castlint.checks import all_rules

    enabled = lambda code: config.rule_enabled(code, path)  # noqa: E731
    if getattr(config, "ignore_noqa", False):  # --ignore-noqa: no comment silences (or is unused)
        return sorted((f for f in raw if enabled(f.code)), key=lambda f: f.sort_key())
    if _may_have_suppressions(source_text, bool(raw)):
        marks = suppressions.parse_suppressions(source_text)
    else:
        marks = []
    kept = suppressions.apply(raw, marks)
    for rule in all_rules():
        if rule.kind == "meta":
            kept.extend(rule.check_suppressions(path, marks, enabled))
    kept = suppressions.exempt(kept, suppressions.file_exemption(source_text))  # `# castlint: noqa`
    return sorted((f for f in kept if enabled(f.code)), key=lambda f: f.sort_key())


_CL_NOQA = re.compile(r"noqa\s*:[^\n]*?\bcl[a-z]*\d", re.IGNORECASE)


def _may_have_suppressions(text: str, findings: bool) -> bool:
    """Could tokenizing the file for suppressions change the result? With findings,
    any castlint or noqa comment may silence one; without, only those CL900 could
    report unused (castlint ones and noqa naming a CL code)."""
    low = text.lower()
    if "castlint" in low:
        return True
    if "noqa" not in low:
        return False
    return findings or bool(_CL_NOQA.search(text))


def check_file(
    path: str,
    tables: Tables,
    config: Config,
    cost_model: CostModel,
    triggers: Optional[Sequence] = None,
    prune: bool = True,
    source: Optional[bytes] = None,
    fixer=None,
    stat=None,
) -> FileResult:
    """Check one file. triggers: encoded_triggers(tables) (None: no prefilter);
    prune: cut the file down with castlint.prune first (same findings, less libcst);
    fixer: called with the whole file's analysis when a finding is fixable (see
    _check_and_fix; castlint.fixes.Fixer), its answer in result.fix; stat: the file's
    os.stat_result at the read (read here when source is None). A prefiltered file is
    still checked for syntax errors (syntax_error)."""
    result = FileResult(path=path)
    if source is None:
        try:
            source, stat = read_source_and_stat(path, config.max_file_size)
        except Exception as exc:  # noqa: BLE001 - every read problem is a per-file error
            result.errors.append(read_error(path, exc))
            return result
    try:
        check_decodable(source)
    except ReadError as exc:
        result.errors.append(FileError(path, exc.line, str(exc), "read"))
        return result
    if triggers is not None and not wanted(path, source, triggers, tables, config):
        result.skipped = True
        broken = syntax_error(path, source)
        if broken is not None:
            result.errors.append(broken)
        return result
    try:
        if fixer is not None:
            _check_then_fix(path, source, stat, tables, config, cost_model, prune, fixer, result)
        else:
            result.findings = _analyze_source(path, source, tables, config, cost_model, prune, result)
    except SyntaxError as exc:
        result.errors.append(FileError(path, exc.lineno or 1, exc.msg, "parse"))
    except RecursionError:  # past the workers' recursion limit (castlint.workers.RECURSION_LIMIT)
        result.errors.append(
            FileError(
                path,
                1,
                f"not checked: code nested too deeply to analyse (over {sys.getrecursionlimit():,} levels)",
                "limit",
            )
        )
    except MemoryError:
        from castlint import workers

        result.errors.append(
            FileError(path, 0, f"not checked: {workers._out_of_memory(workers.CURRENT_LIMITS)}", "limit")
        )
    except Exception as exc:  # an analyzer bug must not stop the run
        result.errors.append(FileError(path, 1, f"internal error: {type(exc).__name__}: {exc}", "internal"))
    return result


def _check_and_fix(path, source, stat, tables, config, cost_model, fixer, result) -> None:
    """Check one file from one parse of the whole file (codemods rewrite whole modules) and,
    when a finding is fixable, hand that analysis to fixer(path, source, stat, ctx,
    findings, config), which returns (what it did, or None; a FileError, or None)."""
    from castlint import prune as pruning

    tables = learned_tables(path, source, tables, result)  # and the accessors pool classes teach it
    linked, tables, own_lines = link_tree(path, source, tables, config, result)
    if own_lines is not None:  # findings through the tree's definitions; fixes from the file's own
        result.mode = pruning.FULL
        result.findings = _linked_findings(path, linked, source_text(source), tables, config, cost_model, own_lines)
        if not any(f.fixable for f in result.findings):
            return
    if pruning.plan(source, tables).kind == pruning.NOTHING:
        result.mode = pruning.NOTHING
        broken = syntax_error(path, source)
        if broken is not None:
            raise SyntaxError(broken.message, (path, broken.line, 1, ""))
        if own_lines is None:
            result.findings = finish([], path, source_text(source), config)
        return
    result.mode = pruning.FULL
    module = parse(source, path)
    ctx = module_context(module, path, tables, cost_model)
    own = run_rules(ctx, source_text(source), config)
    result.findings = own if own_lines is None else _with_own_fixes(result.findings, own)
    if any(f.fixable for f in own):
        result.fix, error = fixer(path, source, stat, ctx, own, config)
        if error is not None:
            result.errors.append(error)


def _check_then_fix(path, source, stat, tables, config, cost_model, prune, fixer, result) -> None:
    """The file is checked as any check does (pruned: the pruned findings and fix labels are the
    whole file's, tests/test_corpus.py), and only a file with a fixable finding is analysed whole
    for the codemods (_check_and_fix). A fixer that only describes its edits (`check -f json`)
    reports no fix error."""
    kept: list = []
    result.findings = _analyze_source(path, source, tables, config, cost_model, prune, result, kept)
    if not any(f.fixable for f in result.findings):
        return
    if kept:  # the check was the whole file's analysis: the codemods take it as it is
        result.fix, error = fixer(path, source, stat, kept[0], result.findings, config)
        if error is not None and not getattr(fixer, "describe", False):
            result.errors.append(error)
        return
    whole = FileResult(path=path)
    _check_and_fix(path, source, stat, tables, config, cost_model, fixer, whole)
    result.fix, result.links = whole.fix, sorted(set(result.links) | set(whole.links))
    if not getattr(fixer, "describe", False):
        result.findings, result.mode = whole.findings, whole.mode
        result.errors.extend(whole.errors)


def _linked_findings(path, linked, own_text, tables, config, cost_model, own_lines) -> list:
    """The findings of a file whose analysis links definitions of the tree after its code."""
    from castlint.analysis import tree_index

    found = _analyze_bytes(path, linked, own_text, own_lines, tables, config, cost_model, False, FileResult(path))
    return tree_index.restore_names(found, path)


def _with_own_fixes(linked: list, own: list) -> list:
    """The linked analysis's findings, each with the fix the file's own analysis offers for
    it (the fix is computed on the file alone, so a finding seen only through linked code
    has none)."""
    import dataclasses

    fixes = {(f.code, f.start.line, f.start.column): f for f in own}
    out = []
    for finding in linked:
        mine = fixes.get((finding.code, finding.start.line, finding.start.column))
        out.append(mine if mine is not None else dataclasses.replace(finding, fix=None))
    return out


def _analyze_source(path, source, tables, config, cost_model, prune, result, keep=None) -> list:
    """keep: a list that gets the FileContext of a whole-file analysis of the file alone (its
    codemods can then reuse it)."""
    tables = learned_tables(path, source, tables, result)  # and the accessors pool classes teach it
    linked, tables, own_lines = link_tree(path, source, tables, config, result)
    if own_lines is None:
        return _analyze_bytes(path, source, None, None, tables, config, cost_model, prune, result, keep)
    # the linked module (own code, then the linked definitions) is pruned as any file is
    from castlint.analysis import tree_index

    found = _analyze_bytes(path, linked, source_text(source), own_lines, tables, config, cost_model, prune, result)
    return tree_index.restore_names(found, path)


def _analyze_bytes(path, source, own_text, own_lines, tables, config, cost_model, prune, result, keep=None) -> list:
    """Findings for source: the file's bytes, or (own_lines given) the file's bytes with
    linked definitions after them, own_text being the file's own text."""
    plan = None
    if prune:
        from castlint import prune as pruning

        plan = pruning.plan(source, tables)
        result.mode = plan.kind
        if plan.kind == pruning.NOTHING:
            broken = syntax_error(path, source)  # maybe decided from the text alone
            if broken is not None:
                raise SyntaxError(broken.message, (path, broken.line, 1, ""))
            return finish([], path, own_text if own_text is not None else source_text(source), config)
        if plan.kind == pruning.PRUNED:
            import libcst as cst

            try:
                module = cst.parse_module(plan.pruned.text)
            except Exception:  # noqa: BLE001 - cannot happen for code ast accepts; be safe
                result.mode = pruning.FULL
            else:
                text = own_text if own_text is not None else source_text(source)
                try:
                    return analyze_module(
                        module, path, text, tables, config, cost_model, pruned=plan.pruned, own_lines=own_lines
                    )
                except PrunedTooFar:
                    result.mode = pruning.FULL
    else:
        result.mode = "full"
    try:
        module = parse(source, path)
    except SyntaxError:
        if plan is not None and plan.error is not None and plan.error.lineno:
            # Both parsers reject it: Python's own message is the clearer one.
            err = plan.error
            raise SyntaxError(
                f"syntax error: {err.msg}" + _python2_hint(source, err.lineno), (path, err.lineno, err.offset or 1, "")
            ) from None
        raise
    return analyze_module(
        module,
        path,
        own_text if own_text is not None else source_text(source),
        tables,
        config,
        cost_model,
        own_lines=own_lines,
        keep=keep,
    )


def may_link(path: str, source: bytes, tables: Tables, config: Config) -> bool:
    """A file without trigger words is still analysed when definitions of the tree it
    imports bring it a pool (castlint.analysis.tree_index; `follow-imports = true`; "uses":
    only when it reads a name that a module it imports hands, link_gate.Hands, first)."""
    if not config.follow_imports:
        return False
    from castlint.analysis import tree_index

    if config.follow_imports == "callers":
        return False  # (wanted asks may_link_callers once the file is known to convert)
    return tree_index.may_link(
        path,
        source,
        tables,
        own_pool_possible(source, tables),
        uses=config.follow_imports == "uses",
        names=config.follow_imports == "uses",
    )


def own_pool_possible(source: bytes, tables: Tables) -> bool:
    """Can the file's own code hold a pool? The pruner's test on the file alone (castlint.prune):
    the linker then links what passes a pool through too, else only what hands the file one."""
    from castlint import prune as pruning

    return pruning.own_pool_possible(source, tables)


def read_error(path: str, exc: BaseException) -> FileError:
    """A clear one-line message for why a file could not be read."""
    if isinstance(exc, ReadError):
        return FileError(path, exc.line, str(exc), "read")
    if isinstance(exc, FileNotFoundError):
        if os.path.islink(path):
            return FileError(path, 0, "broken symbolic link (its target does not exist)", "read")
        return FileError(path, 0, "file disappeared during the run", "read")
    if isinstance(exc, IsADirectoryError):
        return FileError(path, 0, "is a directory, not a Python file", "read")
    if isinstance(exc, PermissionError):
        return FileError(path, 0, "permission denied", "read")
    if isinstance(exc, OSError):
        if exc.errno == errno.ELOOP:
            return FileError(path, 0, "symlink loop (too many levels of symbolic links)", "read")
        try:  # opening a socket fails (ENXIO) before fstat can say what it is
            mode = os.stat(path).st_mode
        except OSError:
            mode = None
        if mode is not None and not stat.S_ISREG(mode):
            return FileError(path, 0, f"not a regular file ({_file_kind(mode)}); not read", "read")
        return FileError(path, 0, f"cannot read: {exc.strerror or exc}", "read")
    if isinstance(exc, ValueError):
        return FileError(path, 0, str(exc), "read")
    return FileError(path, 0, f"cannot read: {type(exc).__name__}: {exc}", "read")


# -- many files ---------------------------------------------------------------


@dataclass
class CheckSettings:
    """What every file of a run is checked with (sent once to each worker)."""

    tables: Tables
    config: Config
    cost_model: CostModel
    triggers: Optional[tuple]  # encoded_triggers(tables); None: no prefilter
    prune: bool = True
    digests: bool = True  # return content digests, for the cache
    fixer: object = None  # castlint.fixes.Fixer: fix each file from its one analysis


_SETTINGS: Dict[str, CheckSettings] = {}  # per process: "run" -> the settings of the current run


def _init_worker(settings: CheckSettings, worker: bool = False):
    _SETTINGS["run"] = settings
    if worker:  # (castlint.workers has already made it exit with its parent)
        # libcst allocates millions of small objects that live until the file is done:
        # the cyclic GC would walk them over and over (about a fifth of the time).
        # A worker's garbage is freed by reference counting, and the worker exits.
        import gc

        gc.disable()


def _check_one(path: str) -> Tuple[FileResult, Optional[bytes]]:
    """Check (and, in a fixing run, fix) one file, returning its content digest for the
    cache (None if unreadable)."""
    from castlint.cache import digest

    s = _SETTINGS["run"]
    try:
        source, stat = read_source_and_stat(path, s.config.max_file_size)
    except Exception as exc:  # noqa: BLE001
        return FileResult(path=path, errors=[read_error(path, exc)]), None
    result = check_file(
        path, s.tables, s.config, s.cost_model, s.triggers, s.prune, source=source, fixer=s.fixer, stat=stat
    )
    return result, (digest(source) if s.digests else None)


def _scan_batch(paths: Sequence[str]) -> List[tuple]:
    """Phase 1: read, decode-check and prefilter. Small tuples, cheap to send back:
    ('skip', path, digest) for files no rule can fire on, ('done', result, digest)
    for files with a read problem, ('parse', path, size) for the others."""
    from castlint.cache import digest

    s = _SETTINGS["run"]
    digests = s.digests
    out = []
    for path in paths:
        try:
            source = read_source(path, s.config.max_file_size)
        except Exception as exc:  # noqa: BLE001
            out.append(("done", FileResult(path=path, errors=[read_error(path, exc)]), None))
            continue
        try:
            check_decodable(source)
        except ReadError as exc:
            result = FileResult(path=path, errors=[FileError(path, exc.line, str(exc), "read")])
            out.append(("done", result, digest(source) if digests else None))
            continue
        if s.triggers is not None and not wanted(path, source, s.triggers, s.tables, s.config):
            broken = syntax_error(path, source)  # no rule fires on it; Python must still parse it
            if broken is not None:
                result = FileResult(path=path, skipped=True, errors=[broken])
                out.append(("done", result, digest(source) if digests else None))
                continue
            out.append(("skip", path, digest(source) if digests else None))
            continue
        out.append(("parse", path, len(source)))
    return out


def encoded_triggers(tables: Tables) -> tuple:
    """Every rule's trigger groups, as bytes for has_trigger."""
    from castlint import prefilter

    return prefilter.encode(prefilter.trigger_groups(tables))


def check_paths(
    files: Sequence[str],
    tables: Tables,
    config: Config,
    jobs: int = 0,
    progress: Optional[Callable[[int], None]] = None,
    prefilter: bool = True,
    prune: bool = True,
    cache: Optional[bool] = None,
    fixer=None,
    named=(),
) -> Run:
    """Check files (already discovered). jobs: worker processes (0: config or core count);
    cache: use .castlint_cache/ (None: as config.cache says); fixer: a castlint.fixes.Fixer
    that fixes every file with a fixable finding from the analysis that found it
    (FileResult.fix; nothing is written here: see castlint.fixes.write_fixes); named: the
    files named on the command line (kept for the callers: every file, named or walked, is
    checked for syntax errors, syntax_error)."""
    from castlint import cache as cachemod

    settings = CheckSettings(tables, config, config.cost_model(tables), None, prune, fixer=fixer)
    jobs = cap_jobs(jobs or config.jobs)  # never more workers than cores, whatever the config says
    use_cache = config.cache if cache is None else cache
    store = cachemod.open_cache(config, tables, options=(prefilter, prune)) if use_cache else None

    run = Run(stats={"files": len(files), "cached": 0})
    done: Dict[str, FileResult] = {}
    todo: List[str] = []
    signatures: Dict[str, tuple] = {}
    for path in files:
        hit = None
        if store is not None:
            sig = cachemod.signature(path)
            signatures[path] = sig
            hit = store.lookup(path, sig)
        if hit is not None and fixer is not None and any(f.fixable for f in hit.findings):
            hit = None  # a fix needs the analysis itself
        if hit is not None:
            done[path] = hit
            run.stats["cached"] += 1
            if progress:
                progress(1)
        else:
            todo.append(path)

    settings.digests = store is not None
    if prefilter and todo:  # the rules' trigger words: not needed when every file comes from the cache
        settings.triggers = encoded_triggers(tables)
    digests: Dict[str, Optional[bytes]] = {}
    results = _run_todo(todo, settings, jobs, progress)
    try:
        for result, dig in results:
            done[result.path] = result
            digests[result.path] = dig
    finally:
        results.close()  # an interrupt here still stops (SIGKILLs) every worker at once

    if store is not None:
        for path in todo:
            result, dig = done[path], digests.get(path)
            if dig is not None and cachemod.cacheable(result):  # a syntax error too: a function of the bytes
                store.store(path, signatures.get(path) or cachemod.signature(path), dig, result)
        store.save()

    run.results = [done[p] for p in sorted(done)]
    for r in run.results:
        mode = r.mode or ("skipped" if r.skipped else None)
        if mode:
            run.stats[mode] = run.stats.get(mode, 0) + 1
    return run


def isolated() -> bool:
    """Parse and analyse in worker processes (the default, whatever -j says).

    CASTLINT_IN_PROCESS=1 does it in this process instead, for profilers and tests
    that count calls; a crash of the native parser then ends the run."""
    return os.environ.get("CASTLINT_IN_PROCESS", "") in ("", "0")


def worker_limits(config: Config, jobs: int) -> Limits:
    """What one file may take in a worker: file-timeout seconds, max-file-memory bytes
    (0: 80 % of the machine's memory shared by the workers)."""
    memory = config.max_file_memory or default_memory(jobs)
    return Limits(timeout=float(config.file_timeout or 0), memory=memory)


def lost_result(path: str, lost: Lost) -> FileResult:
    """The FileResult of a file whose worker died or ran out of time on it."""
    kind = "limit" if lost.kind in ("timeout", "memory") else "crash"
    return FileResult(path=path, errors=[FileError(path, 0, f"not checked: {lost.message}", kind)])


_SPREAD_BYTES = 128 << 10  # a small run whose files to parse add up to this many bytes parses them in -j workers


def _run_todo(todo, settings: CheckSettings, jobs, progress):
    if not todo:
        return
    if not isolated():
        yield from _run_in_process(todo, settings, progress)
        return
    import gc

    small = jobs <= 1 or len(todo) < 16
    to_parse: List[tuple] = []
    try:
        if small:  # reading and prefiltering are safe here; only the parse needs a worker
            _SETTINGS["run"] = settings
            yield from _scanned(_scan_batch(todo), to_parse, progress)
            if not to_parse:
                return
            # A few big files (a warm fix: the files with a fixable finding) are shared out
            # over the workers like a big run's; a few small ones take one worker.
            size = 1
            if len(to_parse) > 1 and -sum(n for n, _ in to_parse) >= _SPREAD_BYTES:
                size = min(jobs, len(to_parse))
            _preimport(settings)
            gc.freeze()  # forked workers then share the parent's objects without copying their pages
            with Pool(
                size, worker_limits(settings.config, size), initializer=_init_worker, initargs=(settings, True)
            ) as pool:
                yield from _parse_all(pool, to_parse, progress)
            return
        with Pool(
            jobs, worker_limits(settings.config, jobs), initializer=_init_worker, initargs=(settings, True)
        ) as pool:
            _preimport(settings)
            gc.freeze()
            size = max(32, min(256, len(todo) // (jobs * 4) + 1))
            batches = [todo[i : i + size] for i in range(0, len(todo), size)]
            for batch, items, lost in pool.run(_scan_batch, batches, split=_split_batch):
                if lost is not None:  # a batch of one (batches are split when lost)
                    yield lost_result(batch[0], lost), None
                    items = []
                yield from _scanned(items, to_parse, progress)
            if to_parse:
                yield from _parse_all(pool, to_parse, progress)
    finally:
        gc.unfreeze()  # a long-lived caller (an editor, a test run) must not keep them forever


def _parse_all(pool, to_parse: List[tuple], progress):
    """Phase 2: check (and fix) each file phase 1 left, in the pool's workers."""
    # biggest first, so that the workers stay evenly loaded; the caller restores the order
    to_parse.sort()
    for path, item, lost in pool.run(_check_one, [path for _, path in to_parse]):
        yield (lost_result(path, lost), None) if lost is not None else item
        if progress:
            progress(1)


def _scanned(items, to_parse: list, progress):
    """The results phase 1 settled ('skip', 'done'); the rest go to to_parse as (-size, path)."""
    done = 0
    for kind, what, extra in items:
        if kind == "skip":
            done += 1
            yield FileResult(path=what, skipped=True), extra
        elif kind == "done":
            done += 1
            yield what, extra
        else:
            to_parse.append((-extra, what))
    if progress and done:
        progress(done)


def _split_batch(batch: Sequence[str]) -> list:
    return [[path] for path in batch] if len(batch) > 1 else []


_WARM: list = []  # (Tables, with the fixes?) this process has warmed up for (held: an id is never reused)
_RUNS = [0]  # the runs of this process that parsed in workers


def _preimport(settings: Optional[CheckSettings] = None) -> None:
    """What every worker needs, made once here instead of once per worker: the modules a file's analysis
    imports; and from a process's second run on (the server, watch, a test run: a process that runs many
    checks), the caches the analysis builds from the tables (trigger anchors, the pruner's vocabulary, compiled
    patterns), made once by checking each rule's first INVALID example here, before the workers fork."""
    import importlib

    for name in (
        "libcst.metadata.scope_provider",
        "castlint.cache",
        "castlint.positions",
        "castlint.prune",
        "castlint.analysis.dataflow",
    ):
        importlib.import_module(name)
    _RUNS[0] += 1
    if settings is None or _RUNS[0] == 1:
        return  # (a process's first run warms nothing: a one-shot check's workers would do it all the same)
    describing = settings.fixer if getattr(settings.fixer, "describe", False) else None  # (one that writes nothing)
    if any(tables is settings.tables and (fixes or describing is None) for tables, fixes in _WARM):
        return
    _WARM.append((settings.tables, describing is not None))
    import dataclasses

    from castlint.checks import ALL_RULES

    config = dataclasses.replace(settings.config, follow_imports=False)  # an example links no module of the tree
    for rule in ALL_RULES:
        for source, _ in rule.INVALID[:1]:
            try:
                check_file(
                    _WARM_PATH,
                    settings.tables,
                    config,
                    settings.cost_model,
                    settings.triggers,
                    True,
                    source=source.encode(),
                    fixer=describing,
                )
            except Exception:  # noqa: BLE001 - a warm-up only: the run decides what its files give
                pass


_WARM_PATH = "<rule example>.py"  # no file: nothing is read, linked or cached under it


def _run_in_process(todo, settings: CheckSettings, progress):
    """CASTLINT_IN_PROCESS=1: every file in this process, one after the other."""
    import gc

    _init_worker(settings)
    # As in a worker, no cyclic GC while libcst builds trees (it would walk them
    # over and over); collect now and then instead, since this process lives on.
    enabled = gc.isenabled()
    gc.disable()
    try:
        parsed = 0
        for path in todo:
            item = _check_one(path)
            if item[0].mode in ("pruned", "full"):
                parsed += 1
                if parsed % 8 == 0:
                    gc.collect()
            yield item
            if progress:
                progress(1)
    finally:
        if enabled:
            gc.enable()


def call_checked(fn: Callable, args: tuple, config: Config, tables: Optional[Tables] = None):
    """fn(*args) in a worker of its own, under the per-file limits: (value, None), or
    (None, Lost) when the worker died or ran out of time. For one file outside a run
    (stdin, an editor's buffer); in this process under CASTLINT_IN_PROCESS=1. With tables, a
    process that calls it again and again (the server) warms the analysis first, as a run does."""
    if not isolated():
        return fn(*args), None
    if tables is not None:
        _preimport(CheckSettings(tables, config, config.cost_model(tables), encoded_triggers(tables)))
    from castlint.workers import call_isolated

    return call_isolated(fn, args, worker_limits(config, 1))


def check_source(path: str, source: bytes, tables: Tables, config: Config) -> FileResult:
    """check_file on bytes that are not on disk (stdin), in a worker: a file that crashes
    the parser or runs past a limit is its own FileError."""
    result, lost = call_checked(
        check_file, (path, tables, config, config.cost_model(tables), None, True, source), config, tables
    )
    return lost_result(path, lost) if lost is not None else result
