"""Measure the equivalence proof at scale (the numbers in docs/fix.md, "Proof of equivalence").

    python tests/faketorch/measure.py [--fuzz N] [--gather N] [--releases]

Runs what tests/test_fix_equivalence.py runs, with more fuzz examples (random seeds)
and every sglang release castlint fixes, and prints the counts.
"""

from __future__ import annotations

import argparse
import collections
import os
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(HERE))
os.environ.setdefault("CASTLINT_FUZZ_RANDOM", "1")

from hypothesis import HealthCheck, given, settings  # noqa: E402

import test_fix_equivalence as T  # noqa: E402
from castlint.fixes import FixError, FixOptions, fix_source  # noqa: E402
from faketorch.harness import Env, execute, same_behaviour  # noqa: E402

RELEASES = ["0.4.6.post5", "0.4.9", "0.5.1", "0.5.4", "0.5.16", "0.5.23"]


def fixtures(stats):
    for out_name in sorted(T.FIX_OPTIONS):
        options = T.FIX_OPTIONS[out_name]
        source = T.source_of(out_name).read_bytes()
        new = T.fixed(source, options)
        claimed = not (options.unsafe and "unsafe" in out_name)
        envs = T.mla_envs(new) if T.is_mla(source) else T.CL003_ENVS
        for env in envs:
            original, fixed_run = T.check_pair(source, new, env)
            stats["fixture runs"] += 1
            stats["fixture calls compared"] += len(original.calls)
            if T.is_mla(source):
                native = T.env_is_native(env)
                (T.assert_native if native else T.assert_same)(original, fixed_run, out_name)
                stats["MLA native-branch runs" if native else "MLA fallback-branch runs"] += 1
            elif claimed:
                T.assert_same(original, fixed_run, out_name)
            elif same_behaviour(original, fixed_run):
                stats["unsafe-flag fixture runs that differ (expected)"] += 1
        stats["fixture pairs"] += 1


def releases(stats):
    from conftest import sglang_tree
    from faketorch.sglang import drive_release

    for version in RELEASES:
        path = sglang_tree(version) / "srt" / "layers" / "attention" / "flashinfer_mla_backend.py"
        source = path.read_bytes()
        new = fix_source(source, str(path), T.TABLES, FixOptions()).new_source
        stats["release files"] += 1
        if new == source:
            print(f"  sglang {version}: not rewritten by the current codemod")
            stats["release files not rewritten"] += 1
            continue
        for env in T.release_envs(version):
            original, fixed_run = drive_release(source, new, env)
            native = T.env_is_native(env)
            (T.assert_native if native else T.assert_same)(original, fixed_run, f"sglang {version}")
            stats["release runs"] += 1
            stats["release calls compared"] += len(original.calls)
        print(f"  sglang {version}: {len(T.release_envs(version))} machines, equivalent")


def fuzz(stats, n, strategy, key, env, unsafe=False):
    @settings(max_examples=n, deadline=None, database=None, suppress_health_check=list(HealthCheck))
    @given(source=strategy)
    def run(source):
        stats[f"{key}: generated"] += 1
        try:
            result = fix_source(source, "backend.py", T.TABLES, FixOptions(unsafe=unsafe))
        except (SyntaxError, FixError):
            return
        if not result.changed:
            return
        stats[f"{key}: changed by the fix"] += 1
        original = execute(source, env, "classes")
        fixed_run = execute(result.new_source, env, "classes")
        stats[f"{key}: calls compared"] += len(original.calls)
        stats[f"{key}: calls that returned"] += sum(1 for c in original.calls if c[1][0] == "ok")
        if same_behaviour(original, fixed_run):
            stats[f"{key}: DIFFERENT"] += 1
            if not unsafe:
                print("DIFFERENT:\n" + source.decode() + "\n---\n" + result.new_source.decode())

    run()


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--fuzz", type=int, default=1000)
    parser.add_argument("--gather", type=int, default=2000)
    parser.add_argument("--releases", action="store_true")
    args = parser.parse_args()
    stats = collections.Counter()
    t0 = time.time()
    fixtures(stats)
    if args.releases:
        releases(stats)
    fuzz(stats, args.fuzz, T._backends(), "generic fuzz", Env(capability=(12, 0)))
    fuzz(stats, args.gather, T.gather_backends(), "CL003 fuzz", Env())
    fuzz(stats, args.gather // 2, T.gather_backends(), "CL003 fuzz --unsafe-fixes", Env(), unsafe=True)
    for key, value in sorted(stats.items()):
        print(f"{key}: {value}")
    print(f"{time.time() - t0:.0f} s")


if __name__ == "__main__":
    main()
