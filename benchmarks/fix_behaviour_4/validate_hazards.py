"""Check that every hazard case of this round is a real hazard, independently of castlint.

The naive "move the cast after the gather" rewrite of round 3's validate_hazards.py (an AST transform,
not castlint; round 2's transform extended to .double()/.type_as() and the gather methods/functions),
run on this folder. Lists the hazard cases whose behaviour the naive rewrite keeps (bad tests), and,
with --safe, the safe cases whose behaviour it changes (bad safe tests). Later rounds'
validate_hazards.py run this one's main() on their own folder.

    python benchmarks/fix_behaviour_4/validate_hazards.py [--safe]
"""
import importlib.util
import os
import sys
import tempfile
import warnings

warnings.filterwarnings("ignore")
HERE = os.path.dirname(os.path.abspath(__file__))
_SPEC = importlib.util.spec_from_file_location("fb3_validate", os.path.join(HERE, "..", "fix_behaviour_3", "validate_hazards.py"))
V3 = importlib.util.module_from_spec(_SPEC)
_SPEC.loader.exec_module(V3)
V2, run = V3.V2, V3.run


def main(here=HERE):
    prefix = "case_s_" if "--safe" in sys.argv else "case_h_"
    bad = []
    for f in sorted(os.listdir(here)):
        if not (f.startswith(prefix) and f.endswith(".py")):
            continue
        new = V2.naive_fix(open(os.path.join(here, f)).read())
        if new is None:
            print(f"{f}: no cast found to move")
            bad.append(f)
            continue
        base = run.run_module(os.path.join(here, f), f[:-3] + "_o")
        if base[0] != "ok":
            print(f"{f}: ORIGINAL RAISES {base[1]}")
            bad.append(f)
            continue
        with tempfile.TemporaryDirectory() as tmp:
            p = os.path.join(tmp, f)
            open(p, "w").write(new)
            res = run.run_module(p, f[:-3] + "_n")
        why = run.compare(base, res)
        print(f"{f}: naive move-the-cast {'CHANGES behaviour: ' + why if why else 'keeps behaviour'}")
        if bool(why) == (prefix == "case_s_"):
            bad.append(f)
    kind = "safe case(s) where the naive rewrite changes" if prefix == "case_s_" else \
        "hazard case(s) where the naive rewrite keeps"
    print(f"\n{len(bad)} {kind} behaviour: {bad}")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
