"""Check that every hazard case of this round is a real hazard, independently of castlint.

The naive "move the cast after the gather" rewrite of the second round's validate_hazards.py (an
AST transform, not castlint), extended to this round's spellings: the casts .double()/.type_as(),
the gathers .gather/.take/.take_along_dim/.masked_select and torch.take/torch.gather/
torch.index_select(x, ...) of the cast variable. Lists the hazard cases whose behaviour the naive
rewrite keeps (bad tests).

    python benchmarks/fix_behaviour_3/validate_hazards.py
"""
import ast
import importlib.util
import os
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
_SPEC = importlib.util.spec_from_file_location("fb2_validate", os.path.join(HERE, "..", "fix_behaviour_2", "validate_hazards.py"))
V2 = importlib.util.module_from_spec(_SPEC)
sys.path.insert(0, os.path.join(HERE, "..", "fix_behaviour_2"))
_SPEC.loader.exec_module(V2)
run = V2.run

V2.CASTS |= {"double", "type_as"}
GATHER_METHODS = {"index_select", "gather", "take", "take_along_dim", "masked_select"}
GATHER_FUNCS = {"index_select", "gather", "take", "take_along_dim", "masked_select"}


class Naive(V2.Naive):
    def visit_Call(self, node):
        self.generic_visit(node)
        f = node.func
        if isinstance(f, ast.Attribute) and f.attr in GATHER_METHODS:
            if V2.is_cast(f.value) and not self.done:
                c = f.value
                f.value = c.func.value
                self.done = True
                return V2.wrap(node, c)
            if self.var and isinstance(f.value, ast.Name) and f.value.id == self.var:
                return V2.wrap(node, self.cast)
        if (isinstance(f, ast.Attribute) and f.attr in GATHER_FUNCS and isinstance(f.value, ast.Name)
                and f.value.id == "torch" and node.args and self.var and isinstance(node.args[0], ast.Name)
                and node.args[0].id == self.var):
            return V2.wrap(node, self.cast)
        return node


V2.Naive = Naive


def main():
    bad = []
    for f in sorted(os.listdir(HERE)):
        if not (f.startswith("case_h_") and f.endswith(".py")):
            continue
        new = V2.naive_fix(open(os.path.join(HERE, f)).read())
        if new is None:
            print(f"{f}: no cast found to move")
            bad.append(f)
            continue
        base = run.run_module(os.path.join(HERE, f), f[:-3] + "_o")
        if base[0] != "ok":
            print(f"{f}: ORIGINAL RAISES {base[1]}")
            bad.append(f)
            continue
        with tempfile.TemporaryDirectory() as tmp:
            p = os.path.join(tmp, f)
            open(p, "w").write(new)
            res = run.run_module(p, f[:-3] + "_n")
        why = run.compare(base, res)
        print(f"{f}: naive move-the-cast {'CHANGES behaviour: ' + why if why else 'keeps behaviour (NOT a hazard)'}")
        if not why:
            bad.append(f)
    print(f"\n{len(bad)} hazard case(s) where the naive rewrite keeps behaviour: {bad}")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
