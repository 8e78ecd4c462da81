"""Casts to the dtype a buffer is allocated in: no conversion.

`pool.get_qsa_key_state_buffer(i).to(pool.index_state_dtype)` of a ring allocated with
`torch.zeros(..., dtype=self.index_state_dtype)` returns the buffer unchanged. Where the
analysis sees a pool's allocation dtype and the cast's target is the same value, the cast is
no whole-pool conversion (CL001 does not report it):

- the allocation dtype: a learnt accessor's (castlint.analysis.pool_classes records the
  `dtype=` of the `[allocation]` calls stored in the buffers it returns, as spelled in the
  pool class: `self.<attribute>`, or a `torch.<dtype>` constant, with the class body's
  `<attribute> = torch.<dtype>` read through), read at the call as `<receiver>.<attribute>`;
  or a `self.` buffer of the checked class (`DataFlow.allocated_dtype`, through per-layer
  lists of allocations);
- the value cast: followed back through the one flow model's reaching assignments, views,
  reshapes and subscripts to the accessor calls or buffers; every one must have the target
  dtype (a parameter counts only where the flow model says a pool reaches it);
- the target: the same expression (`pool.index_state_dtype`), or the same `torch.<dtype>`
  constant, through a local name assigned once.

Anything unresolved keeps the finding: a cast whose source dtype is unknown converts.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, List, Optional, Set

import libcst as cst

if TYPE_CHECKING:
    from castlint.analysis.dataflow import ModuleAnalysis

_MAX_DEPTH = 12


def _spelled(analysis: "ModuleAnalysis", expr: cst.BaseExpression, depth: int = 0) -> Set[str]:
    """The spellings of a dtype expression: its code, and where a local name is assigned
    once, the assigned value's."""
    out = {analysis.code(expr)}
    if isinstance(expr, cst.Name) and depth < 3:
        for assignment in analysis.reaching(expr):
            if isinstance(assignment.node, cst.Name):
                kind, value, path = analysis.binding(assignment.node)
                if kind == "assign" and not path and value is not None:
                    out |= _spelled(analysis, value, depth + 1)
    return out


def _allocation_dtypes(analysis: "ModuleAnalysis", expr: cst.BaseExpression, depth: int) -> Optional[Set[str]]:
    """The dtype spellings the value of expr is allocated with (each source must have one
    of them: the set of the first, narrowed by the others); None when some source's dtype
    is unknown; an empty set when nothing whole reaches expr."""
    if depth > _MAX_DEPTH:
        return None
    tables = analysis.tables
    if isinstance(expr, cst.Subscript):
        return _allocation_dtypes(analysis, expr.value, depth + 1)
    if isinstance(expr, cst.Call) and isinstance(expr.func, cst.Attribute):
        method = expr.func.attr.value
        accessor = tables.accessors.get(method)
        if accessor is not None:
            spellings = getattr(accessor, "dtype", ()) or ()
            if not spellings:
                return None
            receiver = analysis.code(expr.func.value)
            return {f"{receiver}.{s[len('self.') :]}" if s.startswith("self.") else s for s in spellings}
        if (
            (method in tables.view_methods or method in tables.tuple_view_methods)
            and method not in tables.reinterpret_methods
            and analysis.cast_target(expr) is None
        ):
            return _allocation_dtypes(analysis, expr.func.value, depth + 1)
        return None
    if isinstance(expr, cst.Attribute):
        if isinstance(expr.value, cst.Name) and expr.value.value == "self":
            found = analysis.allocated_dtype(expr)
            if found is None:
                found = _listed_dtype(analysis, expr)
            if found is None or not found.startswith(("self.", "torch.")):
                return None  # a local of the allocating method means nothing here
            return {found}
        return None
    if isinstance(expr, cst.Name):
        from castlint.analysis.dataflow import Origin

        assignments = analysis.reaching(expr)
        if not assignments:
            return None
        common: Optional[Set[str]] = None
        for assignment in assignments:
            node = assignment.node
            param = node if isinstance(node, cst.Param) else analysis.parents.get(node)
            if isinstance(param, cst.Param):
                if analysis._param_origin(param, depth + 1) < Origin.POOL_TUPLE:
                    continue  # no pool arrives here: nothing whole is converted through it
                found = _passed_dtypes(analysis, param, depth + 1)  # the callers' pools
            elif not isinstance(node, cst.Name):
                return None
            else:
                kind, value, path = analysis.binding(node)
                if kind != "assign" or path or value is None:
                    return None
                if analysis.origin(value) < Origin.POOL_TUPLE:
                    continue  # a batch tensor (`source_keys = token_k`): nothing whole converted
                found = _allocation_dtypes(analysis, value, depth + 1)
            if found is None:
                return None
            common = set(found) if common is None else common & found
            if not common:
                return None
        return common or None
    return None


def _passed_dtypes(analysis: "ModuleAnalysis", param: cst.Param, depth: int) -> Optional[Set[str]]:
    """A method parameter that the class's own `self.method(...)` calls feed with a pool: the
    dtypes of what every call passes, spelled in the method (`pool.d` where the call's `p.d`
    is of the `p` it passes as the method's `pool`); None when a caller is not seen."""
    owner = analysis._param_owner(param)
    if not isinstance(owner, cst.FunctionDef) or analysis.cache_parameter(owner, param.name.value) is not None:
        return None
    cls = analysis.method_class(owner)
    if cls is None:
        return None
    analysis._index_class(cls)
    calls = analysis._method_calls.get((id(cls), owner.name.value), [])
    if not calls:
        return None
    p = owner.params
    others = [q for q in (*p.posonly_params, *p.params, *p.kwonly_params) if q is not param]
    common: Optional[Set[str]] = None
    for call in calls:
        argument = analysis._argument_for(call, owner, param, skip_self=True)
        if argument is None:
            continue  # the default
        found = _allocation_dtypes(analysis, argument, depth + 1)
        if found is None:
            return None
        passed = {}
        for q in others:
            value = analysis._argument_for(call, owner, q, skip_self=True)
            if value is not None:
                passed.setdefault(analysis.code(value), q.name.value)
        spelled = set()
        for spelling in found:
            holder, _, attr = spelling.rpartition(".")
            if spelling.startswith("torch."):
                spelled.add(spelling)
            elif holder in passed:
                spelled.add(f"{passed[holder]}.{attr}")
        if not spelled:
            return None
        common = spelled if common is None else common & spelled
        if not common:
            return None
    return common


def _listed_dtype(analysis: "ModuleAnalysis", expr: cst.Attribute) -> Optional[str]:
    """`self.k = [torch.zeros(..., dtype=d) for _ in range(n)]`: d (one dtype for every
    allocation stored in the attribute)."""
    cls = analysis.enclosing_class(expr)
    if cls is None:
        return None
    found: List[str] = []
    for value in analysis.self_attr_values(cls, expr.attr.value):
        if isinstance(value, (cst.ListComp, cst.GeneratorExp)):
            value = value.elt
        elif isinstance(value, (cst.List, cst.Tuple)):
            if not value.elements:
                continue  # a placeholder
            return None
        dtype = analysis.allocated_dtype(value) if isinstance(value, cst.Call) else None
        if dtype is None:
            return None
        found.append(dtype)
    return found[0] if found and all(d == found[0] for d in found) else None


def _plain_value(expr: cst.BaseExpression) -> bool:
    """A name or attribute chain (with constant subscripts): read twice in one call, the same value."""
    while isinstance(expr, (cst.Attribute, cst.Subscript)):
        if isinstance(expr, cst.Subscript) and not all(
            isinstance(e.slice, cst.Index) and isinstance(e.slice.value, (cst.Integer, cst.SimpleString, cst.Name))
            for e in expr.slice
        ):
            return False
        expr = expr.value
    return isinstance(expr, cst.Name)


def same_dtype_cast(analysis: "ModuleAnalysis", call: cst.Call) -> bool:
    """Is `call` (a cast of a whole pool) a cast to the dtype the pool is allocated in?"""
    from castlint.analysis.tree import dotted

    receiver, method, args = analysis.method_parts(call)
    if receiver is None or method is None:
        return False
    if analysis.cast_target(call) == f"{analysis.code(receiver)}.dtype" and _plain_value(receiver):
        return True  # `kb.to(kb.dtype)`, `kb.type_as(kb)`: to its own dtype, whatever it is
    positional, keywords = analysis.expanded_args(args)
    target = keywords.get("dtype")
    if target is None:
        spelling = analysis.tables.casts.get(method)
        if spelling is None or spelling.form not in ("to", "one-arg"):
            return False
        target = next((v for v in positional if dotted(v) is not None), None)
        if target is None or analysis.cast_target(call) != analysis.code(target):
            return False  # `.to(other_tensor)`, a device: not a dtype written out
    allocated = _allocation_dtypes(analysis, receiver, 0)
    return bool(allocated) and bool(allocated & _spelled(analysis, target))
