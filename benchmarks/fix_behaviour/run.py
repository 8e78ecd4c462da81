"""Blind fix-safety benchmark for `castlint fix`.

For every case_*.py next to this file:
  1. run the original module's run_case(torch) (it must run: a failure is a bug in the case);
  2. record what `castlint check --select CL001,CL003` reports on it;
  3. copy it to a temp dir, run `castlint fix <copy>` (default flags), and, separately,
     `castlint fix --unsafe-fixes <copy>`;
  4. import each fixed copy and compare run_case(torch) with the original's, exactly:
     tensors by dtype, shape and raw bytes; containers recursively; other values by ==.

Usage (from /work/main):
    .venv/bin/python benchmarks/fix_behaviour/run.py [-k SUBSTR] [--no-unsafe] [--markdown FILE]
"""
import argparse
import difflib
import importlib.util
import os
import shutil
import subprocess
import sys
import tempfile
import traceback

import torch

HERE = os.path.dirname(os.path.abspath(__file__))
PY = "/work/main/.venv/bin/python"


def load(path, name):
    spec = importlib.util.spec_from_file_location(name, path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def run_module(path, name):
    """Return ("ok", result) or ("error", message)."""
    try:
        mod = load(path, name)
        return "ok", mod.run_case(torch)
    except Exception as e:  # noqa: BLE001
        return "error", f"{type(e).__name__}: {e}".splitlines()[0][:160]


def tensor_bytes(t):
    t = t.detach().contiguous().reshape(-1)
    return t.view(torch.uint8) if t.numel() else t


def same(a, b, where="result"):
    """Return None when equal, else a short description of the first difference."""
    if isinstance(a, torch.Tensor) or isinstance(b, torch.Tensor):
        if not (isinstance(a, torch.Tensor) and isinstance(b, torch.Tensor)):
            return f"{where}: tensor vs {type(b).__name__}"
        if a.dtype != b.dtype:
            return f"{where}: dtype {a.dtype} vs {b.dtype}"
        if a.shape != b.shape:
            return f"{where}: shape {tuple(a.shape)} vs {tuple(b.shape)}"
        if not torch.equal(tensor_bytes(a), tensor_bytes(b)):
            return f"{where}: values differ"
        return None
    if type(a) is not type(b):
        return f"{where}: type {type(a).__name__} vs {type(b).__name__}"
    if isinstance(a, dict):
        if list(a.keys()) != list(b.keys()):
            return f"{where}: keys {list(a)} vs {list(b)}"
        for k in a:
            d = same(a[k], b[k], f"{where}[{k!r}]")
            if d:
                return d
        return None
    if isinstance(a, (list, tuple)):
        if len(a) != len(b):
            return f"{where}: len {len(a)} vs {len(b)}"
        for i, (x, y) in enumerate(zip(a, b)):
            d = same(x, y, f"{where}[{i}]")
            if d:
                return d
        return None
    return None if a == b else f"{where}: {a!r} vs {b!r}"


def castlint(args, cwd):
    p = subprocess.run([PY, "-m", "castlint", *args], cwd=cwd, capture_output=True, text=True, timeout=300)
    return p.returncode, p.stdout + p.stderr


def findings(path):
    _, out = castlint(["check", "--select", "CL001,CL003", "--output-format", "concise", "--no-cache",
                       "--color", "never", path], cwd=os.path.dirname(path))
    codes = []
    for line in out.splitlines():
        for code in ("CL001", "CL003"):
            if f" {code} " in line:
                tag = code
                if "[unsafe fix]" in line:
                    tag += "(unsafe)"
                elif "[*]" in line:
                    tag += "(*)"
                codes.append(tag)
    return codes


def try_fix(src, name, baseline, extra):
    with tempfile.TemporaryDirectory(prefix="clfix_") as tmp:
        dst = os.path.join(tmp, os.path.basename(src))
        shutil.copy(src, dst)
        rc, out = castlint(["fix", *extra, dst], cwd=tmp)
        before = open(src).read()
        after = open(dst).read()
        rewritten = before != after
        diff = "".join(difflib.unified_diff(before.splitlines(True), after.splitlines(True), "orig", "fixed"))
        if not rewritten:
            return {"rewritten": False, "same": True, "why": "", "diff": "", "log": out}
        status, res = run_module(dst, name + ("_u" if extra else "_f"))
        if status != "ok":
            return {"rewritten": True, "same": False, "why": "fixed module raises: " + res, "diff": diff, "log": out}
        d = same(baseline, res)
        return {"rewritten": True, "same": d is None, "why": d or "", "diff": diff, "log": out}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("-k", default="", help="only cases whose name contains this")
    ap.add_argument("--no-unsafe", action="store_true", help="skip the --unsafe-fixes pass")
    ap.add_argument("--markdown", help="also write the table to this file")
    ap.add_argument("--diffs", action="store_true", help="print the diff of every rewritten case")
    args = ap.parse_args()

    _, helptext = castlint(["fix", "--help"], cwd=HERE)
    has_unsafe = "--unsafe-fixes" in helptext and not args.no_unsafe

    cases = sorted(f for f in os.listdir(HERE) if f.startswith("case_") and f.endswith(".py") and args.k in f)
    rows, broken = [], []
    for fname in cases:
        path = os.path.join(HERE, fname)
        name = fname[:-3]
        status, base = run_module(path, name + "_orig")
        if status != "ok":
            broken.append((name, base))
            print(f"BROKEN CASE {name}: {base}", file=sys.stderr)
            continue
        status2, base2 = run_module(path, name + "_orig2")
        if status2 != "ok" or same(base, base2):
            broken.append((name, "not deterministic"))
            continue
        mod = load(path, name + "_meta")
        row = {"case": name, "kind": mod.KIND, "family": mod.FAMILY, "reported": findings(path)}
        row["default"] = try_fix(path, name, base, [])
        if has_unsafe:
            row["unsafe"] = try_fix(path, name, base, ["--unsafe-fixes"])
        rows.append(row)
        d = row["default"]
        print(f"  {name}: default rewritten={d['rewritten']} same={d['same']}"
              + (f"  unsafe rewritten={row['unsafe']['rewritten']} same={row['unsafe']['same']}" if has_unsafe else ""),
              file=sys.stderr, flush=True)
        if args.diffs:
            for mode in ("default", "unsafe"):
                if mode in row and row[mode]["rewritten"]:
                    print(f"--- {name} [{mode}] {row[mode]['why']}\n{row[mode]['diff']}", file=sys.stderr)

    def yn(b):
        return "yes" if b else "no"

    lines = []
    hdr = "| case | kind | castlint reports | default: rewritten? | default: behaviour same? |"
    sep = "|---|---|---|---|---|"
    if has_unsafe:
        hdr += " --unsafe-fixes: rewritten? | --unsafe-fixes: behaviour same? |"
        sep += "---|---|"
    lines += [hdr, sep]
    for r in rows:
        d = r["default"]
        cells = [r["case"], r["kind"], ", ".join(r["reported"]) or "-", yn(d["rewritten"]),
                 ("yes" if d["same"] else "NO: " + d["why"]) if d["rewritten"] else "(n/a)"]
        if has_unsafe:
            u = r["unsafe"]
            cells += [yn(u["rewritten"]), ("yes" if u["same"] else "NO: " + u["why"]) if u["rewritten"] else "(n/a)"]
        lines.append("| " + " | ".join(c.replace("|", "\\|") for c in cells) + " |")

    def summary(mode):
        rw = [r for r in rows if r[mode]["rewritten"]]
        bad = [r for r in rw if not r[mode]["same"]]
        safe = [r for r in rows if r["kind"] == "safe"]
        safe_fixed = [r for r in safe if r[mode]["rewritten"] and r[mode]["same"]]
        haz_rw = [r for r in rw if r["kind"] == "hazard"]
        out = [f"{mode}: {len(rw)} rewritten, {len(bad)} changed behaviour"
               f" (hazard cases rewritten: {len(haz_rw)}); safe cases fixed correctly: {len(safe_fixed)}/{len(safe)}"]
        for r in bad:
            out.append(f"  CHANGED {r['case']} ({r['family']}): {r[mode]['why']}")
        for r in safe:
            if not r[mode]["rewritten"] and r["reported"]:
                out.append(f"  reported but not fixed (safe): {r['case']} [{', '.join(r['reported'])}]")
            elif not r["reported"]:
                out.append(f"  not reported (safe): {r['case']}")
        return out

    summ = [f"{len(cases)} cases, {len(rows)} ran ({sum(r['kind'] == 'hazard' for r in rows)} hazard, "
            f"{sum(r['kind'] == 'safe' for r in rows)} safe), {len(broken)} broken"]
    summ += summary("default")
    if has_unsafe:
        summ += summary("unsafe")
    for name, why in broken:
        summ.append(f"  BROKEN {name}: {why}")
    text = "\n".join(lines) + "\n\n" + "\n".join(summ) + "\n"
    print(text)
    if args.markdown:
        with open(args.markdown, "w") as f:
            f.write(text)
    return 1 if broken or any(r["default"]["rewritten"] and not r["default"]["same"] for r in rows) else 0


if __name__ == "__main__":
    sys.exit(main())
