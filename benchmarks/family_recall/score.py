#!/usr/bin/env python3
"""Score castlint against the blind corpus: per-family recall/precision, misses, false positives.

Labels: <case>.labels next to each case file, one `LINE CODE` per expected finding.
Family: the f<N> prefix of the top-level file or directory name.
"""
import collections
import json
import os
import pathlib
import re
import subprocess
import sys

# the corpus: this folder, or the one named on the command line (benchmarks/family_recall_2)
ROOT = (pathlib.Path(sys.argv[1]) if len(sys.argv) > 1 else pathlib.Path(__file__).parent).resolve()
CASTLINT = [sys.executable, "-m", "castlint"]
# CASTLINT_CONFIG="follow-imports = true": a setting over the defaults (check --config)
EXTRA = ["--config", os.environ["CASTLINT_CONFIG"]] if os.environ.get("CASTLINT_CONFIG") else []
CODES = "CL001,CL002,CL003,CL004"
FAMILY_NAMES = {
    "f1": "through other objects",
    "f2": "class hierarchies",
    "f3": "containers",
    "f4": "call indirection",
    "f5": "whole-keeping ops",
    "f6": "custom accessors / connectors",
    "f7": "cross-module",
}


def case_files():
    return sorted(p for p in ROOT.rglob("*.py") if p.relative_to(ROOT).parts[0].startswith("f"))


def family_of(rel: str) -> str:
    return re.match(r"(f\d)", rel).group(1)


def load_labels(files):
    labels = {}
    for py in files:
        rel = str(py.relative_to(ROOT))
        lab = py.with_suffix(".labels")
        if not lab.exists():
            continue
        for raw in lab.read_text().splitlines():
            raw = raw.strip()
            if not raw or raw.startswith("#"):
                continue
            line, code = raw.split()[:2]
            labels[(rel, int(line))] = code
    return labels


def run_castlint(files):
    rels = [str(p.relative_to(ROOT)) for p in files]
    cmd = [*CASTLINT, "check", *EXTRA, "--no-cache", "--format", "json", "--select", CODES, *rels]
    proc = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True)
    if proc.returncode not in (0, 1):
        print(f"castlint exited {proc.returncode}\n{proc.stderr}", file=sys.stderr)
    data = json.loads(proc.stdout)
    for err in data.get("errors", []):
        print("castlint error:", err, file=sys.stderr)
    found = collections.defaultdict(set)  # (file, line) -> {codes}
    for f in data["findings"]:
        path = pathlib.Path(f["path"])
        rel = str((ROOT / path).resolve().relative_to(ROOT)) if not path.is_absolute() else str(path.relative_to(ROOT))
        found[(rel, f["start"]["line"])].add(f["code"])
    return found, data


def src_line(rel, line):
    try:
        return (ROOT / rel).read_text().splitlines()[line - 1].strip()
    except IndexError:
        return "<no such line>"


def main():
    files = case_files()
    labels = load_labels(files)
    found, data = run_castlint(files)

    stats = collections.defaultdict(lambda: collections.Counter())
    misses, wrong, fps = [], [], []
    for (rel, line), code in sorted(labels.items()):
        fam = family_of(rel)
        stats[fam]["labels"] += 1
        got = found.get((rel, line), set())
        if code in got:
            stats[fam]["tp"] += 1
        elif got:
            stats[fam]["wrong_code"] += 1
            wrong.append((rel, line, fam, code, sorted(got)))
        else:
            stats[fam]["miss"] += 1
            misses.append((rel, line, fam, code))
    for (rel, line), codes in sorted(found.items()):
        fam = family_of(rel)
        exp = labels.get((rel, line))
        extra = codes - {exp} if exp else codes
        if exp and exp not in codes:
            extra = set()  # counted under wrong_code already
        for code in sorted(extra):
            stats[fam]["fp"] += 1
            fps.append((rel, line, fam, code))

    def pct(a, b):
        return f"{100.0 * a / b:5.1f}%" if b else "   n/a"

    print(f"castlint {data['tool']['version']}: {data['summary']['files_checked']} files, {data['summary']['findings']} findings\n")
    hdr = f"{'family':<36} {'labels':>6} {'TP':>4} {'wrong':>5} {'miss':>4} {'FP':>4} {'recall':>7} {'recall*':>7} {'prec':>7} {'prec*':>7}"
    print(hdr)
    print("-" * len(hdr))
    tot = collections.Counter()
    for fam in sorted(stats):
        s = stats[fam]
        tot.update(s)
        flagged = s["tp"] + s["wrong_code"] + s["fp"]
        name = f"{fam} {FAMILY_NAMES.get(fam, '')}"
        print(f"{name:<36} {s['labels']:>6} {s['tp']:>4} {s['wrong_code']:>5} {s['miss']:>4} {s['fp']:>4} "
              f"{pct(s['tp'], s['labels']):>7} {pct(s['tp'] + s['wrong_code'], s['labels']):>7} "
              f"{pct(s['tp'], flagged):>7} {pct(s['tp'] + s['wrong_code'], flagged):>7}")
    flagged = tot["tp"] + tot["wrong_code"] + tot["fp"]
    print("-" * len(hdr))
    print(f"{'TOTAL':<36} {tot['labels']:>6} {tot['tp']:>4} {tot['wrong_code']:>5} {tot['miss']:>4} {tot['fp']:>4} "
          f"{pct(tot['tp'], tot['labels']):>7} {pct(tot['tp'] + tot['wrong_code'], tot['labels']):>7} "
          f"{pct(tot['tp'], flagged):>7} {pct(tot['tp'] + tot['wrong_code'], flagged):>7}")
    print("recall*/prec*: a finding on the labelled line with another code counts as found.\n")

    print(f"MISSES ({len(misses)})")
    for fam in sorted(FAMILY_NAMES):
        rows = [m for m in misses if m[2] == fam]
        if rows:
            print(f"  [{fam} {FAMILY_NAMES[fam]}]")
            for rel, line, _, code in rows:
                print(f"    {rel}:{line} {code}  {src_line(rel, line)}")
    print(f"\nFOUND, WRONG CODE ({len(wrong)})")
    for rel, line, fam, code, got in wrong:
        print(f"    {rel}:{line} [{fam}] expected {code} got {','.join(got)}  {src_line(rel, line)}")
    print(f"\nFALSE POSITIVES ({len(fps)})")
    for rel, line, fam, code in fps:
        s = src_line(rel, line)
        tag = "marked-negative" if "# negative:" in s else "unmarked"
        print(f"    {rel}:{line} [{fam}] {code} ({tag})  {s}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
