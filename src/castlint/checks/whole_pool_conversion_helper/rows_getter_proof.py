"""Pool accessors that dequantize their whole buffer: the rows getter the fix adds beside each.

sglang's FP4 pools dequantize the layer's whole buffer in `get_key_buffer`
(`FP4MXBlock16KVQuantizeUtil.batched_dequantize(self.kv_buffer[i], ...)`). When
the dequantize is row-wise (rules/row_reads.toml [[row_wise_helper]]: row i of
the result depends only on row i of its row arguments), then

    helper(a[rows], s[rows], ...) == helper(a, s, ...)[rows]

and an accessor `get_key_buffer(self, layer_id)` can have a sibling
`get_key_buffer_rows(self, layer_id, rows)`: the same body, with the dequantize
applied to `arg[rows]` of its row arguments and every other `return` made
`return None` ("that buffer is read as stored: use the accessor"). An accessor
that returns another one's value (`return self._get_key_buffer(layer_id)`)
gets a sibling that returns the other's sibling. The accessor itself is not
changed: every caller that passes no rows reads what it read before.

`rows_getters(analysis)` gives the siblings a file's pool classes get, or why
one cannot be derived; `_unsound` says when a sibling would not behave like
`accessor(...)[rows]` (the dequantized buffer read besides its return, effects that would run
twice, a sibling already inherited or hidden by an attribute). A class that overrides an accessor without a sibling
(in this file or another) is caught at run time: read_kv_rows (the module the
backend fix adds) reads the rows only when each sibling is defined by the class
that defines its accessor.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Dict, List, Optional, Sequence, Set, Tuple

import libcst as cst

from castlint.analysis.cast_motion import proven_on_a_copy, unproven_effect
from castlint.analysis.dataflow import Origin
from castlint.analysis.tree import iter_nodes

CODEMOD = "rows-getter"  # Fix.codemod of the CL004 findings this fix addresses


@dataclass
class RowsGetter:
    """One accessor and the sibling the fix adds after it."""

    method: cst.FunctionDef
    cls: cst.ClassDef
    name: str  # the sibling's name
    parameter: str  # its rows parameter
    # id(return statement) -> how its value changes: "rows" (the dequantize reads only
    # the rows), "delegate" (the other accessor's sibling), "none" (read as stored)
    returns: Dict[int, str] = field(default_factory=dict)
    row_args: Set[int] = field(default_factory=set)  # id(arg expression) that gets `[rows]`
    delegations: Dict[int, str] = field(default_factory=dict)  # id(call) -> the sibling it calls
    stub: bool = False  # the accessor reads as stored: the sibling only returns None


def helper_name(analysis, call: cst.Call) -> Optional[str]:
    func = call.func
    if isinstance(func, cst.Attribute):
        return func.attr.value
    if isinstance(func, cst.Name):
        return (analysis.call_name(call) or func.value).rsplit(".", 1)[-1]
    return None


def _row_wise(analysis, call: cst.Call) -> Optional[Tuple[int, ...]]:
    """The row arguments (positions) of a row-wise helper call, or None."""
    row = analysis.tables.row_wise_helpers.get(helper_name(analysis, call) or "")
    return None if row is None else tuple(row)


def _positional(call: cst.Call) -> List[cst.Arg]:
    return [a for a in call.args if a.keyword is None and not a.star]


class _Derivation:
    def __init__(self, analysis):
        self.analysis = analysis
        self.suffix = analysis.tables.rows_getter["suffix"]
        self.parameter = analysis.tables.rows_getter["parameter"]

    def own_returns(self, method: cst.FunctionDef) -> List[cst.Return]:
        """The returns of method itself (not of functions it defines)."""
        out = []
        for node in iter_nodes(method.body, cst.Return):
            if self.analysis.enclosing_function(node) is method:
                out.append(node)
        return out

    def dequantize_of(self, value: Optional[cst.BaseExpression]) -> Optional[cst.Call]:
        """The row-wise dequantize of a whole pool that `value` is: the call itself, or a
        name whose one reaching binding is `name = <that call>`."""
        analysis = self.analysis
        if isinstance(value, cst.Name):
            reaching = analysis.reaching(value)
            if len(reaching) != 1:
                return None
            kind, value, path = analysis.binding(reaching[0].node)
            if kind != "assign" or path:
                return None
        if not isinstance(value, cst.Call):
            return None
        rows = _row_wise(analysis, value)
        helper = analysis.tables.conversion_helpers.get(helper_name(analysis, value) or "")
        if rows is None or helper is None or helper.direction != "dequantize":
            return None
        args = _positional(value)
        if not rows or max(rows) >= len(args):
            return None
        if analysis.origin(args[helper.arg].value) < Origin.POOL_TUPLE:
            return None
        return value

    def delegate(self, value: Optional[cst.BaseExpression], cls: cst.ClassDef, chosen: Set[int]):
        """`self.<accessor>(...)` where the method that names, in cls or in a subclass of
        it that this file defines (the analysis's method resolution), is one of those
        chosen: None otherwise."""
        analysis = self.analysis
        if (
            isinstance(value, cst.Call)
            and isinstance(value.func, cst.Attribute)
            and isinstance(value.func.value, cst.Name)
            and value.func.value.value == "self"
        ):
            name = value.func.attr.value
            for sub in analysis.nodes.classes:
                if cls in analysis.class_mro(sub):
                    target = analysis.find_method(sub, name)
                    if target is not None and id(target) in chosen:
                        return value
        return None


def _methods(analysis) -> List[Tuple[cst.ClassDef, cst.FunctionDef]]:
    """(class, method) of every class of the file."""
    return [(cls, m) for cls in analysis.nodes.classes for m in analysis.class_methods(cls).values()]


def _why_not(analysis, method: cst.FunctionDef, parameter: str) -> Optional[str]:
    params = method.params
    if (
        params.star_arg not in (None, cst.MaybeSentinel.DEFAULT)
        or params.star_kwarg is not None
        or params.kwonly_params
        or params.posonly_params
        or len(params.params) != 2
    ):
        return "its parameters are not (self, layer)"
    if any(isinstance(d.decorator, (cst.Name, cst.Attribute, cst.Call)) for d in method.decorators):
        return "it is decorated"
    if any(n.value == parameter for n in iter_nodes(method, cst.Name)):
        return f"it already uses the name `{parameter}`"
    if any(True for _ in iter_nodes(method.body, (cst.Yield, cst.Await))):
        return "it is a generator or a coroutine"
    return None


def _unsound(
    analysis,
    method: cst.FunctionDef,
    dequantizes: List[cst.Call],
    sibling: str,
    inherited,
    delegated: Sequence[cst.Call] = (),
) -> Optional[str]:
    """Why the sibling would not behave like `accessor(...)[rows]`, effects included, if it would not.

    - The dequantized buffer is read only by the return: anything else that reads it (an assert on
      its size, a store on self, an index write, a call it is passed to) would see only the rows.
    - read_kv_rows calls the accessor itself when a sibling answers None (read as stored), so the
      code before such an answer runs twice: every effect in the accessor must be proven read-only
      (rules/casts.toml [cast_motion]), an import, or a call of an idempotent method
      ([cast_motion] idempotent_methods); the dequantize itself runs once either way, and a
      `return self.<accessor>(...)` becomes a call of that accessor's sibling, judged there.
    - No class above defines the sibling already (the new one would override it), and nothing
      assigns an attribute of that name (it would hide the method)."""
    if inherited is not None:
        owner = analysis.method_class(inherited)
        return (
            f"`{owner.name.value if owner is not None else '?'}.{sibling}` is already defined above it; "
            "a new one would override it"
        )
    for node in analysis.nodes.attributes:
        parent = analysis.parent(node)
        if node.attr.value == sibling and isinstance(parent, (cst.AssignTarget, cst.AugAssign, cst.AnnAssign)):
            return f"line {analysis.position(node).start.line} assigns an attribute `{sibling}`, which would hide it"
    inside = {id(n) for call in dequantizes for n in iter_nodes(call, cst.CSTNode)}
    targets = set()
    for call in dequantizes:
        parent = analysis.parent(call)
        if (
            isinstance(parent, cst.Assign)
            and len(parent.targets) == 1
            and isinstance(parent.targets[0].target, cst.Name)
        ):
            targets.add(parent.targets[0].target.value)
            inside.add(id(parent.targets[0].target))
    idempotent = analysis.tables.idempotent_methods
    skip = {id(call) for call in delegated}
    for node in iter_nodes(method.body, cst.Name):
        if node.value in targets and id(node) not in inside:
            parent = analysis.parent(node)
            if not (isinstance(parent, cst.Return) and parent.value is node):
                return (
                    f"line {analysis.position(node).start.line} reads the dequantized buffer `{node.value}` "
                    "besides returning it; with the rows alone it would see other values"
                )
    for node in iter_nodes(method.body, cst.CSTNode):
        if id(node) in inside or id(node) in skip or analysis.enclosing_function(node) is not method:
            continue
        if isinstance(node, (cst.Import, cst.ImportFrom)):
            continue  # a second import runs nothing
        if isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute) and node.func.attr.value in idempotent:
            continue
        why = unproven_effect(analysis, node)
        if why is not None and not isinstance(node, (cst.Import, cst.ImportFrom)):
            return (
                f"line {analysis.position(node).start.line} {why}, which is not proven read-only or idempotent: "
                "where the sibling answers None, read_kv_rows calls the accessor again and it would run twice"
            )
    proven_on_a_copy(analysis)
    return None


def rows_getters(analysis) -> Tuple[List[RowsGetter], Dict[int, str]]:
    """(the siblings this file's pool classes get, {line of a dequantize: why no sibling});
    derived once per analysis."""
    found = analysis.derived.get(CODEMOD)
    if found is None:
        found = analysis.derived[CODEMOD] = _rows_getters(analysis)
    return found


def _rows_getters(analysis) -> Tuple[List[RowsGetter], Dict[int, str]]:
    tables = analysis.tables
    if not tables.row_wise_helpers or not tables.rows_getter:
        return [], {}
    derive = _Derivation(analysis)
    methods = _methods(analysis)
    existing = {(id(cls), m.name.value) for cls, m in methods}
    accessors = [(cls, m) for cls, m in methods if m.name.value.lstrip("_") in tables.accessors]
    # the accessors whose own return is a row-wise dequantize of a whole pool
    dequantizing: Dict[int, List[Tuple[cst.Return, cst.Call]]] = {}
    for cls, method in accessors:
        found = [(r, derive.dequantize_of(r.value)) for r in derive.own_returns(method)]
        found = [(r, c) for r, c in found if c is not None]
        if found:
            dequantizing[id(method)] = found
    chosen = {id(m) for cls, m in accessors if id(m) in dequantizing}
    changed = True
    while changed:  # accessors that return what one of those returns
        changed = False
        for cls, method in accessors:
            if id(method) not in chosen and any(
                derive.delegate(r.value, cls, chosen) is not None for r in derive.own_returns(method)
            ):
                chosen.add(id(method))
                changed = True
    getters, refused, refused_methods = [], {}, set()
    for cls, method in accessors:
        if id(method) not in chosen:
            continue
        sibling = method.name.value + derive.suffix
        if (id(cls), sibling) in existing:
            continue  # already there: a second fix adds nothing
        why = _why_not(analysis, method, derive.parameter)
        if why is not None:
            refused_methods.add(id(method))
            for _, call in dequantizing.get(id(method), ()):
                refused[analysis.position(call).start.line] = (
                    f"no rows getter beside `{cls.name.value}.{method.name.value}`: {why}"
                )
            continue
        inherited = analysis.find_method(cls, sibling)
        delegated = [d for r in derive.own_returns(method) if (d := derive.delegate(r.value, cls, chosen)) is not None]
        why = _unsound(
            analysis, method, [c for _, c in dequantizing.get(id(method), ())], sibling, inherited, delegated
        )
        if why is not None:
            refused_methods.add(id(method))
            for _, call in dequantizing.get(id(method), ()) or [(None, method)]:
                refused[analysis.position(call).start.line] = (
                    f"no rows getter beside `{cls.name.value}.{method.name.value}`: {why}"
                )
            continue
        getter = RowsGetter(method, cls, sibling, derive.parameter)
        by_return = {id(r): c for r, c in dequantizing.get(id(method), ())}
        for statement in derive.own_returns(method):
            call = by_return.get(id(statement))
            delegated = derive.delegate(statement.value, cls, chosen)
            if call is not None:
                getter.returns[id(statement)] = "rows"
                for position in _row_wise(analysis, call):
                    getter.row_args.add(id(_positional(call)[position].value))
            elif delegated is not None:
                getter.returns[id(statement)] = "delegate"
                getter.delegations[id(delegated)] = delegated.func.attr.value + derive.suffix
            else:
                getter.returns[id(statement)] = "none"
        getters.append(getter)
    # a sibling that delegates to one that is not added would call nothing: drop it too
    dropped = True
    while dropped:
        dropped = False
        for getter in list(getters):
            for name in getter.delegations.values():
                target = analysis.find_method(getter.cls, name[: -len(derive.suffix)])
                if target is not None and id(target) in refused_methods:
                    getters.remove(getter)
                    refused_methods.add(id(getter.method))
                    refused[analysis.position(getter.method).start.line] = (
                        f"no rows getter beside `{getter.cls.name.value}.{getter.method.name.value}`: it returns "
                        f"`self.{target.name.value}(...)`, which gets none"
                    )
                    dropped = True
                    break
    # what a delegating sibling calls must exist in its own class too: where `self.m` is
    # there an accessor that reads as stored, it gets a sibling that says so (None)
    stubs = {}
    for getter in list(getters):
        for name in getter.delegations.values():
            target = analysis.find_method(getter.cls, name[: -len(derive.suffix)])
            owner = analysis.method_class(target) if target is not None else None
            if target is None or owner is None or id(target) in chosen or (id(owner), name) in existing:
                continue
            if _why_not(analysis, target, derive.parameter) is None and id(target) not in stubs:
                stubs[id(target)] = RowsGetter(target, owner, name, derive.parameter, stub=True)
    getters += stubs.values()
    return getters, refused


def sibling_for(analysis, call: cst.Call) -> Tuple[Optional[RowsGetter], Optional[str]]:
    """(the sibling that reads only the rows of this dequantize's accessor, None),
    (None, why none can be added), or (None, None) when the fix does not apply."""
    getters, refused = rows_getters(analysis)
    method = analysis.enclosing_function(call)
    for getter in getters:
        if getter.method is method:
            return getter, None
    return None, refused.get(analysis.position(call).start.line)


def has_sibling(analysis, call: cst.Call) -> bool:
    """Is a rows getter already defined beside this dequantize's accessor?"""
    method = analysis.enclosing_function(call)
    cls = analysis.method_class(method) if method is not None else None
    if cls is None or not analysis.tables.rows_getter:
        return False
    wanted = method.name.value + analysis.tables.rows_getter["suffix"]
    return wanted in analysis.class_methods(cls)


__all__: Sequence[str] = ("CODEMOD", "RowsGetter", "has_sibling", "rows_getters", "sibling_for")
