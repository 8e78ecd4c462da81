#!/usr/bin/env python3
"""castlint against ruff on a whole sglang release: cold, warm and one changed file.

Usage (from the repository root, with castlint installed, e.g. in .venv):

    python benchmarks/lint_speed.py                      # sglang 0.5.23, 5 runs each
    python benchmarks/lint_speed.py --version 0.4.9 --runs 7 --jobs 2
    python benchmarks/lint_speed.py --json results.json  # also write the numbers
    python benchmarks/lint_speed.py --only cold --runs 7  # just the cold run
    # before and after, same session, same load: a checkout of the older commit as baseline
    git worktree add /tmp/castlint-before HEAD~1
    python benchmarks/lint_speed.py --baseline /tmp/castlint-before/src --runs 5

What it does:

1. downloads the released wheel (`pip download --no-deps sglang==VERSION`) into
   ~/.cache/castlint/wheels (CASTLINT_TEST_CACHE moves it) and unpacks its
   sglang/ package there, as the tests do; installs ruff with pip if it is missing;
2. copies the tree into a temporary directory (castlint's cache lives next to
   it, and the one-changed-file runs edit a file);
3. runs each scenario --runs times, castlint and ruff alternately so that both
   see the same machine load, and prints the median, min and max wall time:

   - cold: `castlint check --no-cache TREE` vs `ruff check --select E,F,W --no-cache TREE`;
   - warm (nothing changed): `castlint check TREE` with its cache filled, vs
     `ruff check --select E,F,W TREE` with its cache filled;
   - one changed file: a line appended to one file, then the same warm commands;
     once for an ordinary file (srt/utils/common.py: big, no trigger words) and
     once for the FlashInfer MLA backend (parsed and analysed);
   - pre-commit style: `castlint check FILE` on the one changed file, no cache.

--baseline SRC also runs a second castlint, imported from SRC (PYTHONPATH), in the same
rounds (castlint, baseline, ruff), so that both castlints see the same load.

Each command's exit status is 0 (clean) or 1 (findings); anything else aborts.
Times are wall-clock seconds from process start to exit, so they include the
Python start-up and imports that a user pays.
"""
from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import zipfile
from pathlib import Path

CACHE = Path(os.environ.get("CASTLINT_TEST_CACHE", Path.home() / ".cache" / "castlint"))
# a big file with no trigger words (read, hashed, prefiltered), and the MLA backend
# (parsed and analysed: the case castlint exists for); the first that exists
ORDINARY = ("srt/utils/common.py", "srt/utils.py")
HEAVY = ("srt/layers/attention/flashinfer_mla_backend.py",)


def pick(tree: Path, candidates, needle: bytes) -> str:
    for rel in candidates:
        if (tree / rel).is_file():
            return rel
    files = sorted(tree.rglob("*.py"), key=lambda p: p.stat().st_size, reverse=True)
    for path in files:
        if (needle in path.read_bytes()) == bool(needle):
            return str(path.relative_to(tree))
    return str(files[0].relative_to(tree))


def sglang_tree(version: str) -> Path:
    wheels = CACHE / "wheels"
    wheels.mkdir(parents=True, exist_ok=True)
    prefix = f"sglang-{version}-"
    found = sorted(p for p in wheels.glob("*.whl") if p.name.startswith(prefix))
    if not found:
        subprocess.run([sys.executable, "-m", "pip", "download", "--no-deps", "-q", f"sglang=={version}",
                        "-d", str(wheels)], check=True)
        found = sorted(p for p in wheels.glob("*.whl") if p.name.startswith(prefix))
    target = CACHE / "src" / version
    marker = target / ".unpacked-sglang"
    if not marker.exists():
        with zipfile.ZipFile(found[0]) as zf:
            zf.extractall(target, [n for n in zf.namelist() if n.startswith("sglang/")])
        marker.touch()
    return target / "sglang"


def ruff_command() -> list:
    exe = shutil.which("ruff", path=os.path.dirname(sys.executable) + os.pathsep + os.environ.get("PATH", ""))
    if exe is None:
        subprocess.run([sys.executable, "-m", "pip", "install", "-q", "ruff"], check=True)
        exe = shutil.which("ruff", path=os.path.dirname(sys.executable)) or "ruff"
    return [exe]


def timed(cmd, cwd, env=None) -> float:
    start = time.perf_counter()
    proc = subprocess.run(cmd, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, env=env)
    elapsed = time.perf_counter() - start
    if proc.returncode not in (0, 1):
        raise SystemExit(f"{' '.join(map(str, cmd))} exited {proc.returncode}:\n{proc.stderr[-2000:]}")
    return elapsed


def summary(samples) -> dict:
    return {"median": statistics.median(samples), "min": min(samples), "max": max(samples),
            "runs": [round(s, 3) for s in samples]}


def spread(samples) -> str:
    return f"{statistics.median(samples):5.2f} s ({min(samples):.2f}-{max(samples):.2f})"


SCENARIOS = ("cold", "cold-empty-cache", "warm", "one-changed", "pre-commit")


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--version", default="0.5.23", help="sglang release (default 0.5.23)")
    parser.add_argument("--runs", type=int, default=5, help="runs per scenario (default 5)")
    parser.add_argument("--jobs", type=int, default=0, help="castlint -j (default: core count)")
    parser.add_argument("--json", help="also write the results to this file")
    parser.add_argument("--only", default=",".join(SCENARIOS),
                        help=f"comma-separated scenarios to run (default: all of {', '.join(SCENARIOS)})")
    parser.add_argument("--baseline", help="a second castlint's source directory (imported through PYTHONPATH), "
                                           "run in the same rounds: before/after under the same load")
    args = parser.parse_args(argv)
    only = {name.strip() for name in args.only.split(",") if name.strip()}
    if only - set(SCENARIOS):
        parser.error(f"unknown scenario(s): {', '.join(sorted(only - set(SCENARIOS)))}")
    baseline_env = None
    if args.baseline:
        baseline = Path(args.baseline).resolve()
        if not (baseline / "castlint" / "__init__.py").is_file():
            parser.error(f"--baseline {baseline}: no castlint package there")
        baseline_env = dict(os.environ, PYTHONPATH=str(baseline))

    source = sglang_tree(args.version)
    castlint = [sys.executable, "-m", "castlint", "check", "-q"] + (["-j", str(args.jobs)] if args.jobs else [])
    ruff = ruff_command() + ["check", "--select", "E,F,W", "-q", "--exit-zero"]
    ruff_version = subprocess.run(ruff_command() + ["--version"], capture_output=True, text=True).stdout.strip()
    castlint_version = subprocess.run([sys.executable, "-m", "castlint", "--version"], capture_output=True,
                                      text=True).stdout.strip()

    with tempfile.TemporaryDirectory(prefix="castlint-bench-") as tmp:
        work = Path(tmp)
        tree = work / "sglang"
        shutil.copytree(source, tree, symlinks=True)
        files = sum(1 for _ in tree.rglob("*.py"))
        ordinary = pick(tree, ORDINARY, b"")
        heavy = pick(tree, HEAVY, b"get_key_buffer")
        rows = {}

        def scenario(name, castlint_cmd, ruff_cmd, before=None):
            c, b, r = [], [], []
            for i in range(args.runs):
                if before:
                    before(i)
                c.append(timed(castlint_cmd, work))
                if baseline_env is not None:
                    if before:
                        before(i)
                    b.append(timed(castlint_cmd, work, baseline_env))
                if ruff_cmd:
                    r.append(timed(ruff_cmd, work))
            rows[name] = {"castlint": summary(c), "ruff": summary(r) if r else None}
            line = f"{name:38s} castlint {spread(c)}"
            if b:
                rows[name]["baseline"] = summary(b)
                line += f"   baseline {spread(b)}"
            if r:
                line += f"   ruff {spread(r)}   ratio {statistics.median(c) / statistics.median(r):5.2f}x"
                if b:
                    line += f" (baseline {statistics.median(b) / statistics.median(r):5.2f}x)"
            print(line, flush=True)

        def clear_caches(_):
            shutil.rmtree(work / ".castlint_cache", ignore_errors=True)
            shutil.rmtree(work / ".ruff_cache", ignore_errors=True)

        print(f"sglang {args.version}: {files} .py files; {castlint_version}; {ruff_version}; "
              f"{os.cpu_count()} cores; Python {platform.python_version()}", flush=True)
        if "cold" in only:
            scenario("cold (--no-cache)", castlint + ["--no-cache", "sglang"], ruff + ["--no-cache", "sglang"])
        if "cold-empty-cache" in only:
            scenario("cold, empty cache dir", castlint + ["sglang"], ruff + ["sglang"], before=clear_caches)
        if only & {"warm", "one-changed"}:
            # fill both caches (two castlints of the same version number share castlint's)
            timed(castlint + ["sglang"], work)
            if baseline_env is not None:
                timed(castlint + ["sglang"], work, baseline_env)
            timed(ruff + ["sglang"], work)
        if "warm" in only:
            scenario("warm (nothing changed)", castlint + ["sglang"], ruff + ["sglang"])

        def touch(rel):
            def edit(i):
                with open(tree / rel, "a", encoding="utf-8") as fh:
                    fh.write(f"# edit {time.time_ns()} {i}\n")
            return edit

        if "one-changed" in only:
            scenario(f"one changed file ({Path(ordinary).name})", castlint + ["sglang"], ruff + ["sglang"],
                     before=touch(ordinary))
            scenario(f"one changed file ({Path(heavy).name})", castlint + ["sglang"], ruff + ["sglang"],
                     before=touch(heavy))
        if "pre-commit" in only:
            scenario(f"pre-commit: check {Path(heavy).name}", castlint + ["--no-cache", f"sglang/{heavy}"],
                     ruff + ["--no-cache", f"sglang/{heavy}"])

    result = {"sglang": args.version, "files": files, "castlint": castlint_version, "ruff": ruff_version,
              "cores": os.cpu_count(), "python": platform.python_version(), "runs": args.runs,
              "baseline": args.baseline, "scenarios": rows}
    if args.json:
        Path(args.json).write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
