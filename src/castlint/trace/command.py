"""`castlint trace`: run a program under the watcher and report its whole-buffer conversions.

    castlint trace [OPTIONS] -- python my_bench.py ARGS   # any command; every Python process it starts
    castlint trace [OPTIONS] --module pkg.mod:func         # call func() in this process
    castlint trace [OPTIONS] --module pkg.mod              # run pkg.mod as __main__ in this process

Exit codes: 0 no conversion seen, 1 conversions reported, 2 errors (the
program failed, a bad option, nothing could be traced).
"""

from __future__ import annotations

import glob
import json
import os
import subprocess
import sys
import tempfile
import traceback
from pathlib import Path
from typing import List, Optional, Sequence

from castlint.common.exit_codes import EXIT_CLEAN, EXIT_ERROR, EXIT_FINDINGS


def _err(message: str) -> None:
    from rich.console import Console
    from rich.markup import escape

    Console(stderr=True, highlight=False).print(f"[bold red]error:[/] {escape(message)}")


def _trace_subprocess(command: Sequence[str], threshold: int, rules: Sequence[str], skip: Sequence[str]):
    """Run command with the bootstrap on PYTHONPATH; return (returncode, raw dumps)."""
    import castlint

    boot = Path(__file__).resolve().parent / "_bootstrap"
    root = Path(castlint.__file__).resolve().parent.parent
    with tempfile.TemporaryDirectory(prefix="castlint-trace-") as out:
        env = dict(os.environ)
        env["PYTHONPATH"] = os.pathsep.join(
            [str(boot), str(root)] + ([env["PYTHONPATH"]] if env.get("PYTHONPATH") else [])
        )
        env["CASTLINT_TRACE_OUT"] = out
        env["CASTLINT_TRACE_THRESHOLD"] = str(threshold)
        env["CASTLINT_TRACE_RULES"] = os.pathsep.join(str(Path(r).resolve()) for r in rules)
        env["CASTLINT_TRACE_SKIP"] = os.pathsep.join(str(Path(s).resolve()) for s in skip)
        try:
            proc = subprocess.run(list(command), env=env)
        except OSError as exc:
            raise RuntimeError(f"cannot run {command[0]!r}: {exc.strerror or exc}") from exc
        raws = []
        for path in sorted(glob.glob(os.path.join(out, "*.json"))):
            with open(path, encoding="utf-8") as fh:
                raws.append(json.load(fh))
    return proc.returncode, raws


def _trace_module(target: str, threshold: int, rules: Sequence[str], skip: Sequence[str]):
    """Import and run target in this process under the tracer; return (returncode, raw dumps)."""
    import importlib
    import runpy

    from castlint.trace.runtime import Tracer

    if os.getcwd() not in sys.path:
        sys.path.insert(0, os.getcwd())
    module_name, _, func_name = target.partition(":")
    tracer = Tracer(threshold, extra_rules=rules, skip=skip)
    code = 0
    try:
        with tracer:
            if func_name:
                module = importlib.import_module(module_name)
                func = module
                for part in func_name.split("."):
                    func = getattr(func, part)
                func()
            else:
                runpy.run_module(module_name, run_name="__main__", alter_sys=True)
    except SystemExit as exc:
        code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
    except Exception:  # noqa: BLE001 - report what was seen, then fail
        traceback.print_exc()
        code = 1
    return code, [tracer.to_json()]


def run_trace(
    command: Optional[List[str]] = None,
    module: Optional[str] = None,
    threshold: Optional[str] = None,
    fmt: str = "text",
    output_file: Optional[str] = None,
    jobs: int = 1,
    static: bool = True,
    exit_zero: bool = False,
    quiet: bool = False,
    config_file: Optional[str] = None,
    skip: Sequence[str] = (),
    color: bool = False,
) -> int:
    command = list(command or [])
    if command and command[0] == "--":
        command = command[1:]
    if bool(command) == bool(module):
        _err("give a command after `--` (castlint trace -- python my_bench.py) or --module pkg.mod[:func], not both")
        return EXIT_ERROR
    from castlint.trace.table import TraceTableError, load_trace_tables, parse_threshold

    config = rule_tables = None
    rules: List[str] = []
    if static or config_file:  # the run's settings, once: the static check and the fixes' edits use them
        from castlint.session import CommandLine, Session, SessionError

        try:
            config, rule_tables = Session(CommandLine(config_file=config_file), [os.getcwd()]).settings()
        except SessionError as exc:
            _err(str(exc))
            return EXIT_ERROR
        rules = [str(p) for p in config.extend_rules]
    try:
        trace_tables = load_trace_tables(rules)
        limit = trace_tables.threshold if threshold is None else parse_threshold(threshold)
    except TraceTableError as exc:
        _err(str(exc))
        return EXIT_ERROR
    try:
        if module:
            code, raws = _trace_module(module, limit, rules, skip)
        else:
            code, raws = _trace_subprocess(command, limit, rules, skip)
    except ImportError as exc:
        _err(f"castlint trace needs PyTorch in the traced program's environment ({exc})")
        return EXIT_ERROR
    except RuntimeError as exc:
        _err(str(exc))
        return EXIT_ERROR
    from castlint.trace.report import build_report, render

    findings, errors, meta = build_report(
        raws,
        static=static,
        jobs=jobs,
        config=config,
        tables=rule_tables,
        confirms=trace_tables.confirms,
        edits=_edit_options(fmt),
    )
    text = render(fmt, findings, errors, meta, quiet=quiet, color=color and not output_file)
    if output_file:
        Path(output_file).write_text(text, encoding="utf-8")
    else:
        sys.stdout.write(text)
        sys.stdout.flush()
    if code != 0:
        _err(f"the traced program exited with status {code}")
        return EXIT_ERROR
    if not raws:
        _err(
            "no traced process imported torch: nothing was watched (a process started with python -I or -S "
            "skips castlint's start-up hook)"
        )
        return EXIT_ERROR
    if errors:
        return EXIT_ERROR
    return EXIT_FINDINGS if findings and not exit_zero else EXIT_CLEAN


def _edit_options(fmt: str):
    """The fix options whose edits the static findings carry, for the formats that show them
    (castlint.report.SHOWS_FIX_EDITS); None for the others (no fix is computed)."""
    from castlint.report import SHOWS_FIX_EDITS

    if fmt not in SHOWS_FIX_EDITS:
        return None
    from castlint.fixoptions import FixOptions

    return FixOptions(dry_run=True)
