"""castlint.analysis.tree walks libcst trees without rebuilding them (speed):
they must meet libcst's nodes, in libcst's order, and give libcst's scopes."""

from __future__ import annotations

import libcst as cst
import pytest
from libcst.metadata import MetadataWrapper, ParentNodeProvider, ScopeProvider

from castlint.analysis import tree
from castlint.checks import all_rules
from conftest import FIXTURES

# What the direct walks must get right: child field order (IfExp, Call, decorators,
# f-string format specs, conditional ImportFrom names), attribute hooks (ClassDef
# bases), the visitors' own manual visits (comprehensions, lambdas, defaults,
# annotations), and every kind of binding the scopes record.
SYNTAX = '''\
"""doc"""
from __future__ import annotations
import os.path as osp, sys
from . import a
from .b import (c as d, e)
from x import *
X: int = 1
Y = lambda p, *q, r=X, **s: (p, q, r, s)
y = a if sys else d
z = f"{y!r:>{X}} {y=} {'q'}" "plain" f'{X:{y}.{X}}'
w = [i for i in range(3) if i for j in range(i)] + list({k: v for k, v in {}.items()})
g = (t async for t in u) if False else {m for m in ()}
del w


@dec(arg)
@other.dec
class C(Base, metaclass=Meta, **kw):
    attr = 1
    other: str

    def method(self, a: int = 2, /, b=3, *args, c, d=4, **kwargs) -> "C":
        global X
        nonlocal_holder = 1

        def inner():
            nonlocal nonlocal_holder
            nonlocal_holder += 1
            return self.attr

        with open(a) as (fh, other), ctx():
            pass
        try:
            pass
        except (ValueError, TypeError) as exc:
            raise RuntimeError() from exc
        else:
            pass
        finally:
            pass
        for i, (j, k) in enumerate(zip(args, kwargs)):
            if (n := i) > 1:
                break
        else:
            pass
        while False:
            continue
        match a:
            case [1, *rest]:
                pass
            case {"k": v, **others}:
                pass
            case C(attr=q) | None as alias:
                pass
            case _:
                pass
        assert a, "msg"
        x = y = self.method(a, *args, key=b, **kwargs)[1:2, ::3, ...]
        x += 1
        x.attr: int = -x ** 2 // 3 @ m
        return not (a and b or c) is not None in []


async def coroutine(*, k):
    async with k as v:
        await v
    async for q in v:
        yield q
    return [await q for q in v]


if __name__ == "__main__":
    print(C().method(1, c=2), sep="")
'''


def _sources():
    sources = [p.read_text(encoding="utf-8") for p in sorted(FIXTURES.rglob("*.py"))]
    sources += [src for rule in all_rules() for src in rule.VALID]
    sources += [src for rule in all_rules() for src, _ in rule.INVALID]
    sources += [SYNTAX, "", "\n", "# only a comment\n", "x = (\n  1 +\\\n  2)\r\ny = '''a\r\nb'''\rz = f'{x!r:>{y}}'\n"]
    try:
        sources.append(
            cst.parse_module("def f[T: int, *Ts, **P](x: T) -> T:\n    type A[U] = list[U]\n    return x\n").code
        )
    except Exception:  # noqa: BLE001 - a libcst without PEP 695 syntax
        pass
    return sources


def _preorder(module: cst.Module):
    out, stack = [], [module]
    while stack:
        node = stack.pop()
        out.append(node)
        stack.extend(reversed(node.children))
    return out


@pytest.mark.parametrize("index", range(len(_sources())))
def test_children_and_node_index_are_libcsts(index):
    module = cst.parse_module(_sources()[index])
    nodes = _preorder(module)
    for node in nodes:
        assert tree.children(node) == list(node.children)
    assert list(tree.iter_nodes(module, cst.CSTNode)) == nodes
    assert list(tree.iter_nodes(module, cst.Name)) == [n for n in nodes if isinstance(n, cst.Name)]

    expected = MetadataWrapper(module, unsafe_skip_copy=True).resolve(ParentNodeProvider)
    index_ = tree.NodeIndex.build(module)
    # the tree's nodes, then the ones the index makes (NodeIndex.synthetic), each under its statement
    made = {id(part): statement for part, statement in index_.synthetic}
    assert len(index_.parents) == len(expected) + len(made)
    assert all(index_.parents[node] is parent for node, parent in expected.items())
    assert list(index_.parents)[: len(nodes) - 1] == nodes[1:]  # filled in visit order, as the visitor did
    assert all(made[id(part)] is statement for part, statement in list(index_.parents.items())[len(nodes) - 1 :])
    assert index_.calls == [n for n in nodes if isinstance(n, cst.Call)]
    assert index_.attributes == [n for n in nodes if isinstance(n, cst.Attribute)]
    assert index_.names == {n.value for n in nodes if isinstance(n, cst.Name)}


def _scope_summary(scopes, nodes):
    """Every node's scope (numbered by first appearance), and every scope's assignments
    and accesses with what they refer to (as node positions in the walk)."""
    where = {id(node): i for i, node in enumerate(nodes)}
    numbers: dict = {}
    per_node = []
    for node in nodes:
        scope = scopes.get(node)
        per_node.append(None if scope is None else numbers.setdefault(id(scope), (len(numbers), scope)))
    per_scope = []
    for number, scope in sorted(numbers.values(), key=lambda item: item[0]):
        rows = []
        for assignment in scope.assignments:
            rows.append(
                (
                    "assign",
                    assignment.name,
                    type(assignment).__name__,
                    where.get(id(getattr(assignment, "node", None))),
                    sorted(where.get(id(access.node), -1) for access in assignment.references),
                )
            )
        for access in scope.accesses:
            rows.append(
                (
                    "access",
                    where.get(id(access.node)),
                    sorted(where.get(id(getattr(r, "node", None)), -1) for r in access.referents),
                )
            )
        per_scope.append((number, type(scope).__name__, sorted(rows, key=repr)))
    return [p and p[0] for p in per_node], per_scope


@pytest.mark.parametrize("index", range(len(_sources())))
def test_scopes_are_libcsts(index, monkeypatch):
    """The direct walk gives what libcst's own ExpressionContextVisitor and ScopeVisitor
    give when libcst drives them."""
    assert tree._direct_scope_visitors() is not None  # the direct walk is in use here
    module = cst.parse_module(_sources()[index])
    nodes = _preorder(module)
    got = tree.resolve_scopes(MetadataWrapper(module, unsafe_skip_copy=True))
    monkeypatch.setattr(tree, "_direct_scope_visitors", lambda: None)
    expected = tree.resolve_scopes(MetadataWrapper(module, unsafe_skip_copy=True))
    in_tree = {id(node) for node in nodes}  # (string annotations are parsed afresh each time)
    assert {id(n) for n in got if id(n) in in_tree} == {id(n) for n in expected if id(n) in in_tree}
    assert len(got) == len(expected)
    assert _scope_summary(got, nodes) == _scope_summary(expected, nodes)
    # and what the metadata wrapper gives, node for node where both have one
    wrapped = MetadataWrapper(module, unsafe_skip_copy=True).resolve(ScopeProvider)
    both = [node for node in nodes if node in wrapped and node in got]
    assert len(both) == len([n for n in nodes if n in got])
    assert _scope_summary({n: got[n] for n in both}, both) == _scope_summary({n: wrapped[n] for n in both}, both)


def test_child_fields_learnt_from_a_node_without_its_optional_children(monkeypatch):
    """The field order is learnt from the first node of each type met; a child that
    libcst visits only when present (a formatted string's format_spec) must still be
    walked, in its place, when a later node has it."""
    monkeypatch.setattr(tree, "_CHILD_FIELDS", {})
    module = cst.parse_module('a = f"{x}"\nb = f"{y!r:>{z}} {w=}"\nfrom m import *\nfrom n import (o, p)\n')
    for node in _preorder(module):
        assert tree.children(node) == list(node.children)


def test_iter_nodes_from_spans_is_the_walk():
    """iter_nodes answers from the spans of the module indexed last; any node, any kind (a
    concrete type, an abstract base, a tuple), the same nodes in the same order as the walk.
    A node of another tree (or none of a tree) is walked."""
    module = cst.parse_module(SYNTAX)
    tree.NodeIndex.build(module)
    kinds = [cst.Call, cst.Name, cst.BaseExpression, cst.BaseSmallStatement, (cst.FunctionDef, cst.Lambda), cst.CSTNode]
    for node in tree._walk_nodes(module, cst.CSTNode):
        for kind in kinds:
            assert tree._SPANS[0].within(node, kind) == list(tree._walk_nodes(node, kind))
            assert list(tree.iter_nodes(node, kind)) == list(tree._walk_nodes(node, kind))
    other = cst.parse_module(SYNTAX)  # equal, but not the indexed tree
    assert tree._SPANS[0].within(other, cst.Name) is None
    assert list(tree.iter_nodes(other, cst.Name)) == list(tree._walk_nodes(other, cst.Name))
    made = cst.Call(cst.Name("f"), [cst.Arg(cst.Name("x"))])  # built, never indexed
    assert [n.value for n in tree.iter_nodes(made, cst.Name)] == ["f", "x"]


def test_children_is_libcsts():
    module = cst.parse_module(SYNTAX)
    for node in tree._walk_nodes(module, cst.CSTNode):
        assert tree.children(node) == list(node.children)
