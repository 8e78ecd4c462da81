"""Check that every hazard case is a real hazard, independently of castlint.

For each case_h_*.py this applies the naive rewrite by hand (an AST transform, not
castlint): in the function that does `x = <buffer>.<cast>(...)`, drop the cast and
append it to every later `x[...]` / `x.index_select(...)` / `torch.index_select(x, ...)`.
It then checks that run_case() of the naively rewritten module differs from the
original (or raises). A hazard case for which the naive rewrite keeps behaviour would
be a bad test; this script lists those.

    .venv/bin/python benchmarks/fix_behaviour/validate_hazards.py
"""
import ast
import os
import sys
import tempfile

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import run  # noqa: E402

CASTS = {"float", "to", "bfloat16", "half", "type"}


def is_cast(node):
    return (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in CASTS
            and "get_key_buffer" in ast.unparse(node) or (
                isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in CASTS
                and isinstance(node.func.value, ast.Name) and node.func.value.id in {"buf", "kv", "k_buf", "key_cache"}))


class Naive(ast.NodeTransformer):
    def __init__(self):
        self.var = None
        self.cast = None
        self.done = False

    def strip(self, value):
        if is_cast(value):
            self.cast = value
            return value.func.value
        if isinstance(value, ast.IfExp) and is_cast(value.body):
            self.cast = value.body
            value.body = value.body.func.value
            return value
        return None

    def visit_Assign(self, node):
        if not self.done and isinstance(node.targets[-1], ast.Name):
            new = self.strip(node.value)
            if new is not None:
                self.var = node.targets[-1].id
                node.value = new
                self.done = True
                return node
        self.generic_visit(node)
        return node

    def wrap(self, node):
        c = self.cast
        return ast.Call(func=ast.Attribute(value=node, attr=c.func.attr, ctx=ast.Load()), args=c.args,
                        keywords=c.keywords)

    def visit_Subscript(self, node):
        self.generic_visit(node)
        if self.done and isinstance(node.ctx, ast.Load) and isinstance(node.value, ast.Name) \
                and node.value.id == self.var:
            return self.wrap(node)
        return node

    def visit_Call(self, node):
        self.generic_visit(node)
        if not self.done:
            return node
        f = node.func
        if isinstance(f, ast.Attribute) and f.attr == "index_select" and isinstance(f.value, ast.Name) \
                and f.value.id == self.var:
            return self.wrap(node)
        if ast.unparse(f) == "torch.index_select" and isinstance(node.args[0], ast.Name) \
                and node.args[0].id == self.var:
            return self.wrap(node)
        return node


def naive_fix(src):
    tree = ast.parse(src)
    out = []
    for node in tree.body:
        if isinstance(node, ast.ClassDef) and node.name in {"MHATokenToKVPool"}:
            out.append(node)
            continue
        out.append(node)
    t = Naive()
    # only transform the code under test: skip the shared pool class and run_case
    for node in tree.body:
        if isinstance(node, (ast.ClassDef, ast.FunctionDef)) and node.name not in {"MHATokenToKVPool", "run_case",
                                                                                 "_rand"}:
            t.visit(node)
    if not t.done:
        return None
    return ast.unparse(ast.fix_missing_locations(tree))


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    bad = []
    for f in sorted(os.listdir(here)):
        if not (f.startswith("case_h_") and f.endswith(".py")):
            continue
        src = open(os.path.join(here, f)).read()
        new = naive_fix(src)
        if new is None:
            print(f"{f}: no cast found to move")
            bad.append(f)
            continue
        _, base = run.run_module(os.path.join(here, f), f[:-3] + "_o")
        with tempfile.TemporaryDirectory() as tmp:
            p = os.path.join(tmp, f)
            open(p, "w").write(new)
            status, res = run.run_module(p, f[:-3] + "_n")
        why = res if status != "ok" else run.same(base, res)
        print(f"{f}: naive move-the-cast {'CHANGES behaviour: ' + why if why else 'keeps behaviour (NOT a hazard)'}")
        if not why:
            bad.append(f)
    print(f"\n{len(bad)} hazard case(s) where the naive rewrite keeps behaviour: {bad}")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
