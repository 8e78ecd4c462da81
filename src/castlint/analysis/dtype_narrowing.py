"""Narrowing of dtype equality by conditions: a cast where a test has shown the value already has
the target dtype converts nothing.

`if kv.dtype == d: return kv.to(d)`, the else branch of `if kv.dtype != d:`, the statements after
`if kv.dtype != d: return ...` (or continue, break, raise), a conditional expression's branches, and
the walrus form `if (k := rec.k).dtype != d: return ...` (both `k` and `rec.k` are narrowed). `is` /
`is not` read as `==` / `!=`; a conjunction narrows its body by each part, a disjunction narrows the
else (and the code past an exiting body) by each part. The tested value must be the cast's receiver
(the same spelling and, for a local name, the same reaching assignments) and the tested dtype the
cast's target (the same spelling, or the same `torch.<dtype>` through a once-assigned local or a
dtype alias). The positive branch (`!=`'s body, `==`'s else) keeps its finding.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Iterator, List, Optional, Set, Tuple

import libcst as cst

from castlint.analysis.tree import block_exits

if TYPE_CHECKING:
    from castlint.analysis.dataflow import ModuleAnalysis

_EQUAL = (cst.Equal, cst.Is)
_NOT_EQUAL = (cst.NotEqual, cst.IsNot)


def _comparisons(test: cst.BaseExpression, holds: bool) -> Iterator[Tuple[cst.BaseExpression, cst.BaseExpression]]:
    """(value, dtype) pairs whose `value.dtype == dtype` follows from test being `holds`."""
    while isinstance(test, cst.UnaryOperation) and isinstance(test.operator, cst.Not):
        test, holds = test.expression, not holds
    if isinstance(test, cst.BooleanOperation):
        if isinstance(test.operator, cst.And) == holds:  # `a and b` true / `a or b` false: each part
            yield from _comparisons(test.left, holds)
            yield from _comparisons(test.right, holds)
        return
    if not isinstance(test, cst.Comparison) or len(test.comparisons) != 1:
        return
    target = test.comparisons[0]
    if isinstance(target.operator, _EQUAL):
        equal = holds
    elif isinstance(target.operator, _NOT_EQUAL):
        equal = not holds
    else:
        return
    if not equal:
        return
    left, right = test.left, target.comparator
    for side, other in ((left, right), (right, left)):
        if isinstance(side, cst.Attribute) and side.attr.value == "dtype":
            yield side.value, other
            return


def _guards(analysis: "ModuleAnalysis", node: cst.CSTNode) -> List[Tuple[cst.BaseExpression, cst.BaseExpression]]:
    """The (value, dtype) equalities that hold where node runs, inside its function."""
    found: List[Tuple[cst.BaseExpression, cst.BaseExpression]] = []
    child = node
    for anc in analysis.ancestors(node):
        if isinstance(anc, (cst.FunctionDef, cst.Lambda, cst.ClassDef, cst.Module)):
            break
        if isinstance(anc, cst.If):
            if child is anc.body:
                found.extend(_comparisons(anc.test, True))
            elif child is anc.orelse and isinstance(child, cst.Else):
                found.extend(_comparisons(anc.test, False))
        elif isinstance(anc, cst.IfExp):
            if child is anc.body:
                found.extend(_comparisons(anc.test, True))
            elif child is anc.orelse:
                found.extend(_comparisons(anc.test, False))
        if isinstance(anc, cst.IndentedBlock):
            for stmt in anc.body:
                if stmt is child:
                    break
                if isinstance(stmt, cst.If) and stmt.orelse is None and block_exits(stmt.body):
                    found.extend(_comparisons(stmt.test, False))  # past `if kv.dtype != d: return`
        child = anc
    return found


def _values(value: cst.BaseExpression) -> List[cst.BaseExpression]:
    """The expressions a tested value stands for: a walrus's target and its value; else the value."""
    if isinstance(value, cst.NamedExpr):
        return [value.target, value.value]
    return [value]


def _same_value(analysis: "ModuleAnalysis", tested: cst.BaseExpression, receiver: cst.BaseExpression) -> bool:
    if analysis.code(tested) != analysis.code(receiver):
        return False
    if isinstance(receiver, cst.Name) and isinstance(tested, cst.Name):
        at_cast = {id(a.node) for a in analysis.reaching(receiver)}
        walrus = analysis.parents.get(tested)
        if isinstance(walrus, cst.NamedExpr) and walrus.target is tested:
            return at_cast == {id(tested)}  # the walrus binding is what reaches the cast
        return bool(at_cast) and at_cast == {id(a.node) for a in analysis.reaching(tested)}
    return not any(isinstance(n, cst.Call) for n in _subnodes(receiver))


def _subnodes(expr: cst.CSTNode) -> Iterator[cst.CSTNode]:
    from castlint.analysis.tree import iter_nodes

    return iter_nodes(expr, cst.CSTNode)


def _dtype_spellings(analysis: "ModuleAnalysis", expr: cst.BaseExpression) -> Set[str]:
    from castlint.analysis.same_dtype import _canonical, _spelled

    return _canonical(_spelled(analysis, expr), analysis.tables.dtype_aliases)


def dtype_tested_equal(
    analysis: "ModuleAnalysis",
    call: cst.Call,
    target: Optional[cst.BaseExpression],
    spelled: Optional[Set[str]] = None,
) -> bool:
    """Is call (a cast of its receiver to target, or to the dtype spelled, for `.half()`) under a test
    that its receiver's dtype is that dtype?"""
    from castlint.analysis.same_dtype import _canonical

    receiver, _method, _args = analysis.method_parts(call)
    if receiver is None or (target is None and not spelled):
        return False
    wanted: Optional[Set[str]] = None
    for value, dtype in _guards(analysis, call):
        if not any(_same_value(analysis, v, receiver) for v in _values(value)):
            continue
        if target is not None and analysis.code(dtype) == analysis.code(target):
            return True
        if wanted is None:
            wanted = (
                _dtype_spellings(analysis, target)
                if target is not None
                else _canonical(set(spelled or ()), analysis.tables.dtype_aliases)
            )
        if wanted & _dtype_spellings(analysis, dtype):
            return True
    return False
