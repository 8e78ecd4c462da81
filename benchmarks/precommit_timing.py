"""How long does the castlint pre-commit hook take on one changed file?

    python benchmarks/precommit_timing.py [--runs 15] [--lines 600]

Builds a snapshot of this checkout as a hook repository, a temporary engine
repository with one changed Python file (an attention backend of --lines lines
with one finding), and a .pre-commit-config.yaml with two hooks:

- `baseline`: a local `language: system` hook whose entry is `true`, i.e.
  pre-commit's own start-up, file selection and process spawn;
- `castlint`: the castlint hook from .pre-commit-hooks.yaml with `args: [--fix]`, as
  the README recommends it (its virtualenv is built once, before timing; backend.py is
  restored before each run, so every run fixes the same finding).

Each is run --runs times (`pre-commit run HOOK --files FILE`) and the median
wall time is reported; "castlint beyond pre-commit" is the difference. It also
times `castlint check FILE` straight from the hook's virtualenv. Nothing here
asserts: it prints a markdown table for docs/workflows.md.
"""
from __future__ import annotations

import argparse
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
GIT_ENV = {"GIT_AUTHOR_NAME": "b", "GIT_AUTHOR_EMAIL": "b@example.invalid", "GIT_COMMITTER_NAME": "b",
           "GIT_COMMITTER_EMAIL": "b@example.invalid", "GIT_CONFIG_NOSYSTEM": "1"}

HEADER = '''"""A paged-attention backend (benchmark input written for castlint)."""
import torch


class BenchBackend:
    def __init__(self, model_runner):
        self.pool = model_runner.token_to_kv_pool
        self.scale = 1.0

    def forward_extend(self, q, layer, loc):
        rows = self.pool.get_key_buffer(layer.layer_id).to(torch.bfloat16)[loc]
        return q @ rows.T
'''
FILLER = '''
    def helper_{n}(self, x, y):
        z = x * self.scale + y
        if z.numel() > {n}:
            z = z[: {n}]
        return torch.relu(z).sum(dim=-1)
'''


def git(cwd, *args):
    subprocess.run(["git", *args], cwd=cwd, env=dict(os.environ, **GIT_ENV), check=True, capture_output=True)


def engine_file(lines: int) -> str:
    text, n = HEADER, 0
    while text.count("\n") < lines:
        text += FILLER.format(n=n + 1)
        n += 1
    return text


def setup(work: Path, lines: int) -> tuple:
    hooks = work / "castlint-hooks"
    hooks.mkdir()
    for name in ("pyproject.toml", "setup.py", "README.md", ".pre-commit-hooks.yaml"):
        if (ROOT / name).exists():
            shutil.copy2(ROOT / name, hooks / name)
    if not (hooks / "README.md").exists():
        (hooks / "README.md").write_text("castlint\n")
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc", "*.egg-info")
    for name in ("src", "rules"):
        shutil.copytree(ROOT / name, hooks / name, ignore=ignore)
    git(hooks, "init", "-q")
    git(hooks, "add", "-A")
    git(hooks, "commit", "-q", "-m", "snapshot")
    rev = subprocess.run(["git", "rev-parse", "HEAD"], cwd=hooks, capture_output=True, text=True).stdout.strip()

    repo = work / "engine"
    repo.mkdir()
    git(repo, "init", "-q")
    (repo / "backend.py").write_text(engine_file(lines))
    (repo / ".pre-commit-config.yaml").write_text(
        "repos:\n"
        f"  - repo: {hooks}\n    rev: {rev}\n    hooks:\n      - id: castlint\n        args: [--fix]\n"
        "  - repo: local\n    hooks:\n"
        "      - id: baseline\n        name: baseline\n        entry: 'true'\n        language: system\n"
        "        types: [python]\n"
    )
    git(repo, "add", "-A")
    return repo


def timed(cmd, cwd, env) -> float:
    """Wall time of one run, from the same changed file (the hook passes --fix, as the README
    recommends: each run starts from the unfixed file)."""
    subprocess.run(["git", "checkout", "-q", "--", "backend.py"], cwd=cwd, env=env, capture_output=True)
    start = time.perf_counter()
    subprocess.run(cmd, cwd=cwd, env=env, capture_output=True)
    return time.perf_counter() - start


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=15)
    parser.add_argument("--lines", type=int, default=600)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="castlint-bench-") as tmp:
        work = Path(tmp)
        repo = setup(work, args.lines)
        env = {k: v for k, v in os.environ.items() if not k.startswith(("GITHUB_", "PRE_COMMIT"))}
        env.update(GIT_ENV, PRE_COMMIT_HOME=str(work / "home"))
        pc = [sys.executable, "-m", "pre_commit", "run", "--files", "backend.py", "--color", "never"]
        first = subprocess.run(pc + ["castlint"], cwd=repo, env=env, capture_output=True, text=True)
        if "CL003" not in first.stdout and "1 fixed" not in first.stdout:  # (--fix reports what it fixed)
            print(first.stdout, first.stderr, file=sys.stderr)
            return 1
        hook_env = next((work / "home").glob("repo*/py_env-*"))
        direct = [str(hook_env / "bin" / "castlint"), "check", "backend.py"]
        results = {}
        for name, cmd in (("baseline", pc + ["baseline"]), ("castlint", pc + ["castlint"]), ("direct", direct)):
            timed(cmd, repo, env)  # warm the page cache
            results[name] = [timed(cmd, repo, env) for _ in range(args.runs)]
    med = {k: statistics.median(v) for k, v in results.items()}
    print(f"castlint pre-commit hook, one changed file of {args.lines} lines, median of {args.runs} runs")
    print(f"({platform.python_implementation()} {platform.python_version()}, {os.cpu_count()} cores, "
          f"{platform.system()} {platform.machine()})\n")
    print("| what | median | min | max |")
    print("|---|---:|---:|---:|")
    for name, label in (("baseline", "`pre-commit run` of a no-op hook (pre-commit start-up)"),
                        ("castlint", "`pre-commit run castlint --files backend.py`"),
                        ("direct", "`castlint check backend.py` (hook venv, no pre-commit)")):
        v = results[name]
        print(f"| {label} | {med[name]:.3f} s | {min(v):.3f} s | {max(v):.3f} s |")
    print(f"| **castlint beyond pre-commit start-up** | **{med['castlint'] - med['baseline']:.3f} s** | | |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
