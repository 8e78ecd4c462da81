"""Regenerate the numbers README.md quotes from what the CLI prints.

    python benchmarks/readme_numbers.py            # print the numbers and whether README.md agrees (exit 1 if not)
    python benchmarks/readme_numbers.py --write    # rewrite them in README.md
    python benchmarks/readme_numbers.py --precommit --write   # also time the pre-commit hook (minutes)

Numbers, each from running castlint as a user does (`python -m castlint ...`):

- the decode-step summary on sglang 0.5.23, the newest release the tests fetch (`castlint check
  --no-cache sglang/`, the whole package: the costliest backend's bytes per step and how many
  backends have decode-step work);
- with --precommit, the hook's cost beyond pre-commit's own start-up, measured by
  benchmarks/precommit_timing.py with the hook as the README recommends it (`args: [--fix]`).

sglang 0.5.23 comes from the test cache (tests/conftest.py: downloaded once from the
package index into ~/.cache/castlint, or CASTLINT_TEST_CACHE).
"""
from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"
STEP_RELEASE = "0.5.23"  # the newest release tests/test_corpus.py checks whole
STEP_LINE = re.compile(r"hot-path casts move (?P<bytes>[\d.]+ [KMG]?B) per decode step"
                       r"(?: in the costliest of (?P<n>\d+) backends)?")
# the README sentence, wrapped anywhere
README_STEP = re.compile(r"On sglang " + re.escape(STEP_RELEASE) + r":\s*`hot-path casts move[^`]*`")
README_HOOK = re.compile(r"The pre-commit hook(?: \(with `--fix`\))?\s+costs [\d.]+ s beyond")
HOOK_LINE = re.compile(r"\*\*castlint beyond pre-commit start-up\*\* \| \*\*(?P<s>[\d.]+) s\*\*")


def sglang_tree(version: str) -> Path:
    sys.path.insert(0, str(ROOT / "tests"))
    from conftest import sglang_tree as fetch  # noqa: E402 - the tests' one download of each release

    return fetch(version)


def castlint(*args: str) -> subprocess.CompletedProcess:
    env = dict(os.environ, NO_COLOR="1", COLUMNS="200")
    env.pop("GITHUB_ACTIONS", None)
    return subprocess.run([sys.executable, "-m", "castlint", *args], capture_output=True, text=True, env=env,
                          cwd=ROOT, timeout=1800)


def step_sentence(tree: Path) -> str:
    proc = castlint("check", "--no-cache", str(tree))
    summary = proc.stdout.strip().splitlines()[-1] if proc.stdout.strip() else ""
    match = STEP_LINE.search(summary)
    if match is None:
        raise SystemExit(f"no decode-step total in castlint's summary: {summary!r}")
    text = f"hot-path casts move {match['bytes']} per decode step"
    if match["n"]:
        text += f" in the costliest of {match['n']} backends (...; a server runs one)"
    return f"On sglang {STEP_RELEASE}:\n`{text}`"


def hook_seconds(runs: int) -> str:
    proc = subprocess.run([sys.executable, str(ROOT / "benchmarks" / "precommit_timing.py"), "--runs", str(runs)],
                          capture_output=True, text=True, cwd=ROOT, timeout=3600)
    match = HOOK_LINE.search(proc.stdout)
    if match is None:
        raise SystemExit(f"precommit_timing.py printed no result:\n{proc.stdout}\n{proc.stderr}")
    return f"{float(match['s']):.2f}"


def updated(readme: str, step: str, hook: str = None) -> str:
    readme = README_STEP.sub(lambda _: step, readme, count=1)
    if hook is not None:
        readme = README_HOOK.sub(lambda _: f"The pre-commit hook (with `--fix`)\ncosts {hook} s beyond", readme,
                                 count=1)
    return readme


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--write", action="store_true", help="rewrite README.md")
    parser.add_argument("--precommit", action="store_true", help="also time the pre-commit hook (minutes)")
    parser.add_argument("--runs", type=int, default=9, help="--precommit: runs per hook")
    args = parser.parse_args(argv)
    step = step_sentence(sglang_tree(STEP_RELEASE))
    hook = hook_seconds(args.runs) if args.precommit else None
    print(step.replace("\n", " "))
    if hook is not None:
        print(f"pre-commit hook beyond pre-commit start-up: {hook} s")
    old = README.read_text(encoding="utf-8")
    if README_STEP.search(old) is None:
        raise SystemExit(f"README.md has no `On sglang {STEP_RELEASE}: `hot-path casts move ...`` sentence to update")
    new = updated(old, step, hook)
    if args.write:
        if new != old:
            README.write_text(new, encoding="utf-8")
            print("README.md updated")
        return 0
    same = " ".join(README_STEP.search(old).group(0).split()) == " ".join(step.split())
    print("README.md agrees" if same else "README.md differs: run with --write")
    return 0 if same else 1


if __name__ == "__main__":
    raise SystemExit(main())
