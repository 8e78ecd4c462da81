"""Check that every hazard case is a real hazard, independently of castlint.

Applies the naive rewrite by hand (an AST transform, not castlint), in every function of the case
except the toy pool's and run_case:
  * `<buf>.<cast>(...)[i]`            -> `<buf>[i].<cast>(...)`        (one expression)
  * `x = <buf>.<cast>(...)` ... `x[i]` -> `x = <buf>` ... `x[i].<cast>(...)` (every later load of
    `x[...]` / `x.index_select(...)` by that name in the function, nested scopes included: the naive
    rewrite does not know about scopes)
and checks that run_case() of the naively rewritten module differs from the original's (or raises).
A hazard case for which the naive rewrite keeps behaviour would be a bad test; this lists those.

    python benchmarks/fix_behaviour_2/validate_hazards.py
"""
import ast
import os
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import run  # noqa: E402

CASTS = {"float", "to", "bfloat16", "half", "type"}
POOLISH = ("get_key_buffer", "get_value_buffer", "get_buffers", "buf", "kv", "key_cache", "flat", "k_buf", "v_buf")


def is_cast(node):
    return (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in CASTS
            and any(p in ast.unparse(node.func.value) for p in POOLISH))


def wrap(node, c):
    return ast.Call(func=ast.Attribute(value=node, attr=c.func.attr, ctx=ast.Load()), args=c.args,
                    keywords=c.keywords)


class Naive(ast.NodeTransformer):
    def __init__(self):
        self.var = None
        self.cast = None
        self.done = False

    def visit_Assign(self, node):
        if not self.done and isinstance(node.targets[-1], ast.Name) and is_cast(node.value):
            self.var = node.targets[-1].id
            self.cast = node.value
            node.value = node.value.func.value
            self.done = True
            return node
        self.generic_visit(node)
        return node

    def visit_Subscript(self, node):
        self.generic_visit(node)
        if isinstance(node.ctx, ast.Load) and is_cast(node.value) and not self.done:
            c = node.value
            node.value = c.func.value
            self.done = True
            return wrap(node, c)
        if self.var and isinstance(node.ctx, ast.Load) and isinstance(node.value, ast.Name) \
                and node.value.id == self.var:
            return wrap(node, self.cast)
        return node

    def visit_Call(self, node):
        self.generic_visit(node)
        f = node.func
        if isinstance(f, ast.Attribute) and f.attr == "index_select":
            if is_cast(f.value) and not self.done:
                c = f.value
                f.value = c.func.value
                self.done = True
                return wrap(node, c)
            if self.var and isinstance(f.value, ast.Name) and f.value.id == self.var:
                return wrap(node, self.cast)
        return node


def naive_fix(src):
    tree = ast.parse(src)
    done = False
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name not in {
                "run_case", "_rand", "__init__", "get_key_buffer", "get_value_buffer", "get_kv_buffer",
                "set_kv_buffer"}:
            t = Naive()
            for stmt in node.body:
                t.visit(stmt)
            done = done or t.done
    return ast.unparse(ast.fix_missing_locations(tree)) if done else None


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    bad = []
    for f in sorted(os.listdir(here)):
        if not (f.startswith("case_h_") and f.endswith(".py")):
            continue
        new = naive_fix(open(os.path.join(here, f)).read())
        if new is None:
            print(f"{f}: no cast found to move")
            bad.append(f)
            continue
        base = run.run_module(os.path.join(here, f), f[:-3] + "_o")
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
