"""Casts whose result is only gathered: `pool.to(d)[idx]`, `x = pool.to(d); x[idx]`."""

from __future__ import annotations

from typing import Optional

import libcst as cst

from castlint.analysis.dataflow import ModuleAnalysis


def is_gather_use(analysis: ModuleAnalysis, node: cst.CSTNode) -> bool:
    """Is node (a cast result) consumed by a gather: `node[idx]` or `node.index_select(...)`? A read
    of a name also as the input of a gather function: `torch.index_select(node, 0, idx)` without
    `out=` (function_gather; round 8)."""
    parent = analysis.parent(node)
    if isinstance(node, cst.Name) and isinstance(parent, cst.Arg) and function_gather(analysis, node) is not None:
        return True
    if isinstance(parent, cst.Subscript) and parent.value is node:
        return not analysis.subscript_keeps_whole(parent)
    if (
        isinstance(parent, cst.Attribute)
        and parent.value is node
        and parent.attr.value in analysis.tables.gather_methods
    ):
        return isinstance(analysis.parent(parent), cst.Call)
    return False


def is_shape_read(analysis: ModuleAnalysis, node: cst.CSTNode) -> bool:
    """Is node (a converted pool) read only for its shape (`x.shape`, `x.size(0)`, `x.dim()`:
    rules/casts.toml [cast_motion] shape_reads), which the cast does not change?"""
    parent = analysis.parent(node)
    if not (
        isinstance(parent, cst.Attribute) and parent.value is node and parent.attr.value in analysis.tables.shape_reads
    ):
        return False
    holder = analysis.parent(parent)
    called = isinstance(holder, cst.Call) and holder.func is parent
    return called != (parent.attr.value in ("shape", "ndim"))  # `.shape`, `.ndim` read; the others called


def function_gather(analysis: ModuleAnalysis, call: cst.Call) -> Optional[cst.Call]:
    """`torch.index_select(<call>, 0, idx)`: the gather function (rules/accessors.toml [gathers]
    functions) whose input - its first positional argument - is call, given no `out=`."""
    if analysis.gather_consumer(call) != "function":
        return None
    gather = analysis.parent(analysis.parent(call))
    first = gather.args[0] if gather.args else None
    if first is None or first.value is not call or first.keyword is not None or first.star:
        return None
    if any(arg.keyword is not None and arg.keyword.value == "out" for arg in gather.args):
        return None
    return gather


def bound_name(statement: cst.CSTNode, value: cst.CSTNode) -> Optional[cst.Name]:
    """The one name `value` is bound to by statement: `x = value`, `x: T = value`; else None."""
    if isinstance(statement, cst.Assign) and statement.value is value and len(statement.targets) == 1:
        target = statement.targets[0].target
    elif isinstance(statement, cst.AnnAssign) and statement.value is value:
        target = statement.target
    else:
        return None
    return target if isinstance(target, cst.Name) else None


def gathered_cast(analysis: ModuleAnalysis, call: cst.Call) -> Optional[str]:
    """'direct' for `pool.to(d)[idx]`, 'function' for `torch.index_select(pool.to(d), 0, idx)`,
    'variable' for `x = pool.to(d)` only ever gathered (and read for its shape)."""
    if is_gather_use(analysis, call):
        return "direct"
    if function_gather(analysis, call) is not None:
        return "function"
    name = bound_name(analysis.parent(call), call)
    if name is None:
        return None
    scope = analysis.scopes.get(name)
    if scope is None or len([x for x in scope.assignments[name.value]]) != 1:
        return None
    uses = [access.node for access in scope.accesses[name.value]]
    gathers = [u for u in uses if isinstance(u, cst.Name) and is_gather_use(analysis, u)]
    if gathers and all(
        isinstance(u, cst.Name) and (is_gather_use(analysis, u) or is_shape_read(analysis, u)) for u in uses
    ):
        return "variable"
    return None


def names_dtype_attribute(call: cst.Call) -> bool:
    """`.to(q.dtype)` names a dtype; `.to(other_tensor)` does not."""
    for arg in call.args:
        if isinstance(arg.value, cst.Attribute) and arg.value.attr.value == "dtype":
            return True
    return False


# reads of a tensor's metadata: they use no slot, so they do not keep a converted pool alive
_METADATA = frozenset(
    (
        "shape",
        "dtype",
        "device",
        "size",
        "dim",
        "ndim",
        "stride",
        "numel",
        "nbytes",
        "itemsize",
        "element_size",
        "is_contiguous",
        "data_ptr",
    )
)


def gathered_later(analysis: ModuleAnalysis, node: cst.CSTNode, depth: int = 0) -> bool:
    """Is a converted whole pool only ever gathered, after views that keep it whole (`.reshape`,
    `.view`, `rearrange(...)`, `[:, :512]`, the `[views]` of rules/accessors.toml) and through
    names bound once (`v_up = pool.float(); v_up.reshape(v_up.shape[0], -1)[idx]`)? The CL003
    shapes no codemod rewrites (gathered_cast is the one it does)."""
    if depth > 4:
        return False
    t = analysis.tables
    while True:
        if analysis.gather_consumer(node) is not None:
            return True
        parent = analysis.parent(node)
        if isinstance(parent, cst.Attribute) and parent.value is node and parent.attr.value in t.view_methods:
            call = analysis.parent(parent)
            if not (isinstance(call, cst.Call) and call.func is parent):
                return False
            node = call
            continue
        if isinstance(parent, cst.Subscript) and parent.value is node:  # kept whole (`x[:, :512]`)
            node = parent
            continue
        if isinstance(parent, cst.Arg) and parent.keyword is None and not parent.star:
            call = analysis.parent(parent)
            name = analysis.call_name(call) if isinstance(call, cst.Call) else None
            if not (
                name
                and (name in t.view_functions or name.rsplit(".", 1)[-1] in t.view_functions)
                and analysis._first_positional(call.args) is node
            ):
                return False
            node = call
            continue
        target = bound_name(parent, node)
        if target is not None:
            scope = analysis.scopes.get(target)
            if scope is None or len(list(scope.assignments[target.value])) != 1:
                return False
            uses = [access.node for access in scope.accesses[target.value]]
            data = [u for u in uses if not _metadata_read(analysis, u)]
            return bool(data) and all(isinstance(u, cst.Name) and gathered_later(analysis, u, depth + 1) for u in data)
        return False


def _metadata_read(analysis: ModuleAnalysis, use: cst.CSTNode) -> bool:
    parent = analysis.parent(use)
    return isinstance(parent, cst.Attribute) and parent.value is use and parent.attr.value in _METADATA


def cast_before_gather(analysis: ModuleAnalysis, call: cst.Call) -> bool:
    """Is this pool cast gathered after it (CL003's, not a whole-pool cast of CL001): indexed or
    index_select-ed, passed to a gathering function, or gathered after a reshape or a name?"""
    return (
        gathered_cast(analysis, call) is not None
        or analysis.gather_consumer(call) == "function"
        or gathered_later(analysis, call)
    )
