"""Second blind fix-safety benchmark for `castlint fix` (the runner; same protocol as fix_behaviour/).

For every case_*.py next to this file:
  1. run the original module's run_case(torch) twice (it must run the same both times);
  2. record what `castlint check --select CL001,CL003` reports on it;
  3. copy it to a temp dir, run `castlint fix <copy>` (default: safe fixes only), and, separately,
     `castlint fix --unsafe-fixes <copy>`;
  4. import each fixed copy and compare run_case(torch) with the original's, exactly: tensors by
     dtype, shape, raw bytes, requires_grad and is_inference; containers recursively; other values
     by ==; an exception (raised out of run_case) by its type and message.

castlint is run as `<this python> -m castlint`, so set PYTHONPATH to the tree under test:
    . /tmp/dev/bin/activate; export PYTHONPATH=$PWD/src
    python benchmarks/fix_behaviour_2/run.py [-k SUBSTR] [--no-unsafe] [--diffs] [--markdown FILE] [-j N]
Exit status 1 when a default (safe-labelled) rewrite changes behaviour or a case is broken.
"""
import argparse
import concurrent.futures
import contextlib
import difflib
import importlib.util
import os
import shutil
import subprocess
import sys
import tempfile

import torch

HERE = os.path.dirname(os.path.abspath(__file__))


def load(path, name):
    spec = importlib.util.spec_from_file_location(name, path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def run_module(path, name):
    """("ok", result) or ("error", "Type: message")."""
    try:
        mod = load(path, name)
        return "ok", mod.run_case(torch)
    except Exception as e:  # noqa: BLE001
        return "error", f"{type(e).__name__}: {e}".splitlines()[0][:160]


def tensor_bytes(t):
    t = t.detach().contiguous().reshape(-1)
    return t.view(torch.uint8) if t.numel() else t


def same(a, b, where="result"):
    """None when equal, else a short description of the first difference."""
    if isinstance(a, torch.Tensor) or isinstance(b, torch.Tensor):
        if not (isinstance(a, torch.Tensor) and isinstance(b, torch.Tensor)):
            return f"{where}: {type(a).__name__} vs {type(b).__name__}"
        if a.dtype != b.dtype:
            return f"{where}: dtype {a.dtype} vs {b.dtype}"
        if a.shape != b.shape:
            return f"{where}: shape {tuple(a.shape)} vs {tuple(b.shape)}"
        if a.requires_grad != b.requires_grad:
            return f"{where}: requires_grad {a.requires_grad} vs {b.requires_grad}"
        if a.is_inference() != b.is_inference():
            return f"{where}: is_inference {a.is_inference()} vs {b.is_inference()}"
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
    if callable(a):
        return None
    return None if a == b else f"{where}: {a!r} vs {b!r}"


def compare(base, res):
    """base, res: run_module results. None when the behaviour is the same."""
    (s1, r1), (s2, r2) = base, res
    if s1 == "ok" and s2 == "ok":
        return same(r1, r2)
    if s1 == s2 == "error":
        return None if r1 == r2 else f"raises {r1!r} vs {r2!r}"
    return f"original {'raises ' + r1 if s1 == 'error' else 'returns'}; fixed {'raises ' + r2 if s2 == 'error' else 'returns'}"


def castlint(args, cwd):
    p = subprocess.run([sys.executable, "-m", "castlint", *args], cwd=cwd, capture_output=True, text=True,
                       timeout=300, env=os.environ.copy())
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
    with tempfile.TemporaryDirectory(prefix="clfix2_") as tmp:
        dst = os.path.join(tmp, os.path.basename(src))
        shutil.copy(src, dst)
        _, log = castlint(["fix", "--no-cache", *extra, dst], cwd=tmp)
        before = open(src).read()
        after = open(dst).read()
        if before == after:
            return {"rewritten": False, "same": True, "why": "", "diff": "", "log": log}
        diff = "".join(difflib.unified_diff(before.splitlines(True), after.splitlines(True), "orig", "fixed"))
        res = run_module(dst, name + ("_u" if extra else "_f"))
        why = compare(baseline, res)
        return {"rewritten": True, "same": why is None, "why": why or "", "diff": diff, "log": log}


def one_case(path, has_unsafe):
    name = os.path.basename(path)[:-3]
    base = run_module(path, name + "_orig")
    base2 = run_module(path, name + "_orig2")
    if base[0] != "ok":
        return None, (name, base[1])
    if compare(base, base2):
        return None, (name, "not deterministic: " + compare(base, base2))
    mod = load(path, name + "_meta")
    row = {"case": name, "kind": mod.KIND, "family": mod.FAMILY, "reported": findings(path)}
    row["default"] = try_fix(path, name, base, [])
    if has_unsafe:
        row["unsafe"] = try_fix(path, name, base, ["--unsafe-fixes"])
    return row, None


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("-k", default="", help="only cases whose name contains this")
    ap.add_argument("--no-unsafe", action="store_true", help="skip the --unsafe-fixes pass")
    ap.add_argument("--markdown", help="also write the table and summary to this file")
    ap.add_argument("--diffs", action="store_true", help="print the diff of every rewritten case")
    ap.add_argument("-j", type=int, default=2, help="cases in parallel (default 2)")
    ap.add_argument("--dir", default=HERE, help="the cases' folder (benchmarks/fix_behaviour: the first round)")
    args = ap.parse_args()
    has_unsafe = not args.no_unsafe

    folder = os.path.abspath(args.dir)
    cases = sorted(f for f in os.listdir(folder) if f.startswith("case_") and f.endswith(".py") and args.k in f)
    rows, broken = [], []
    # -j 1 runs the cases in the main thread (a case that installs a signal handler needs it)
    ex = concurrent.futures.ThreadPoolExecutor(max_workers=args.j) if args.j > 1 else None
    with ex or contextlib.nullcontext():
        for row, bad in (ex.map if ex else map)(lambda f: one_case(os.path.join(folder, f), has_unsafe), cases):
            if bad:
                broken.append(bad)
                print(f"BROKEN CASE {bad[0]}: {bad[1]}", file=sys.stderr)
                continue
            rows.append(row)
            d = row["default"]
            print(f"  {row['case']}: default rewritten={d['rewritten']} same={d['same']}"
                  + (f"  unsafe rewritten={row['unsafe']['rewritten']} same={row['unsafe']['same']}"
                     if has_unsafe else ""), file=sys.stderr, flush=True)
            if args.diffs:
                for mode in ("default", "unsafe"):
                    if mode in row and row[mode]["rewritten"]:
                        print(f"--- {row['case']} [{mode}] {row[mode]['why']}\n{row[mode]['diff']}", file=sys.stderr)

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
        hazard = [r for r in rows if r["kind"] == "hazard"]
        safe_fixed = [r for r in safe if r[mode]["rewritten"] and r[mode]["same"]]
        haz_refused = [r for r in hazard if not r[mode]["rewritten"]]
        out = [f"{mode}: {len(rw)} rewritten, {len(bad)} changed behaviour; hazards refused "
               f"{len(haz_refused)}/{len(hazard)}; safe cases fixed correctly: {len(safe_fixed)}/{len(safe)}"]
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
