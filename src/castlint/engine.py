"""Files -> findings: read, prefilter, parse, run the rules, apply suppressions.

Output is sorted by path, line and column whatever the parallelism.
"""
from __future__ import annotations

import os
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, List, Optional, Sequence

import libcst as cst

from castlint import suppressions
from castlint.analysis import ModuleAnalysis
from castlint.checks import ALL_RULES, FileContext, RULES_BY_CODE
from castlint.config import Config, CostModel
from castlint.discover import has_trigger
from castlint.models import FileError, FileResult
from castlint.tables import Tables


@dataclass
class Run:
    results: List[FileResult] = field(default_factory=list)
    errors: List[FileError] = field(default_factory=list)

    @property
    def findings(self):
        out = [f for r in self.results for f in r.findings]
        return sorted(out, key=lambda f: f.sort_key())

    @property
    def all_errors(self):
        out = list(self.errors) + [e for r in self.results for e in r.errors]
        return sorted(out, key=lambda e: (e.path, e.line))


def read_source(path: str, max_size: int) -> bytes:
    """The file's bytes, or FileError-worthy OSError/ValueError."""
    st = os.stat(path)
    if not os.path.isfile(path):
        raise ValueError("not a regular file")
    if st.st_size > max_size:
        raise ValueError(f"file is {st.st_size:,} bytes, over the {max_size:,}-byte limit (max-file-size)")
    with open(path, "rb") as fh:
        data = fh.read(max_size + 1)
    if b"\0" in data:
        raise ValueError("file contains NUL bytes (binary?)")
    return data


def parse(source: bytes, path: str) -> cst.Module:
    try:
        return cst.parse_module(source)
    except cst.ParserSyntaxError as exc:
        raise SyntaxError(f"syntax error: {exc.message}", (path, exc.raw_line, exc.raw_column + 1, "")) from exc
    except (UnicodeDecodeError, LookupError) as exc:
        raise SyntaxError(f"cannot decode: {exc}", (path, 1, 1, "")) from exc


def analyze_module(module: cst.Module, path: str, source_text: str, tables: Tables, config: Config,
                   cost_model: CostModel) -> list:
    wrapper = cst.MetadataWrapper(module, unsafe_skip_copy=True)
    analysis = ModuleAnalysis(wrapper, tables)
    ctx = FileContext(path=path, analysis=analysis, tables=tables, cost_model=cost_model)
    raw = []
    for rule in ALL_RULES:
        if rule.code == "CL900":
            continue
        raw.extend(rule.check(ctx))
    marks = suppressions.parse_suppressions(source_text)
    kept = suppressions.apply(raw, marks)
    enabled = lambda code: config.rule_enabled(code, path)  # noqa: E731
    kept.extend(RULES_BY_CODE["CL900"].unused(path, marks, enabled))
    return sorted((f for f in kept if enabled(f.code)), key=lambda f: f.sort_key())


def check_file(path: str, tables: Tables, config: Config, cost_model: CostModel,
               triggers: Optional[Sequence[bytes]] = None) -> FileResult:
    result = FileResult(path=path)
    try:
        source = read_source(path, config.max_file_size)
    except FileNotFoundError:
        result.errors.append(FileError(path, 0, "file disappeared during the run", "read"))
        return result
    except IsADirectoryError:
        result.errors.append(FileError(path, 0, "is a directory, not a Python file", "read"))
        return result
    except PermissionError:
        result.errors.append(FileError(path, 0, "permission denied", "read"))
        return result
    except OSError as exc:
        result.errors.append(FileError(path, 0, f"cannot read: {exc.strerror or exc}", "read"))
        return result
    except ValueError as exc:
        result.errors.append(FileError(path, 0, str(exc), "read"))
        return result
    if triggers is not None and not has_trigger(source, tuple(triggers)):
        result.skipped = True
        return result
    try:
        module = parse(source, path)
        text = module.code
    except SyntaxError as exc:
        result.errors.append(FileError(path, exc.lineno or 1, exc.msg, "parse"))
        return result
    try:
        result.findings = analyze_module(module, path, text, tables, config, cost_model)
    except RecursionError:
        result.errors.append(FileError(path, 1, "internal error: expression nesting too deep", "internal"))
    except Exception as exc:  # an analyzer bug must not stop the run
        result.errors.append(FileError(path, 1, f"internal error: {type(exc).__name__}: {exc}", "internal"))
    return result


def _worker(args):
    path, tables, config, cost_model, triggers = args
    return check_file(path, tables, config, cost_model, triggers)


def check_paths(files: Sequence[str], tables: Tables, config: Config, jobs: int = 0,
                progress: Optional[Callable[[int], None]] = None, prefilter: bool = True) -> Run:
    cost_model = config.cost_model(tables)
    triggers = tuple(tuple(tuple(w.encode() for w in words) for words in group) for group in tables.trigger_groups()) if prefilter else None
    jobs = jobs or config.jobs or (os.cpu_count() or 1)
    run = Run()
    if jobs <= 1 or len(files) < 8:
        for path in files:
            run.results.append(check_file(path, tables, config, cost_model, triggers))
            if progress:
                progress(1)
    else:
        with ProcessPoolExecutor(max_workers=jobs) as pool:
            work = [(p, tables, config, cost_model, triggers) for p in files]
            for result in pool.map(_worker, work, chunksize=8):
                run.results.append(result)
                if progress:
                    progress(1)
    run.results.sort(key=lambda r: r.path)
    return run
