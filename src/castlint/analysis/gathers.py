"""Casts whose result is only gathered: `pool.to(d)[idx]`, `x = pool.to(d); x[idx]`."""
from __future__ import annotations

from typing import Optional

import libcst as cst

from castlint.analysis.dataflow import ModuleAnalysis


def is_gather_use(analysis: ModuleAnalysis, node: cst.CSTNode) -> bool:
    """Is node (a cast result) consumed by a gather: `node[idx]` or `node.index_select(...)`?"""
    parent = analysis.parent(node)
    if isinstance(parent, cst.Subscript) and parent.value is node:
        return not analysis.subscript_keeps_whole(parent)
    if isinstance(parent, cst.Attribute) and parent.value is node and parent.attr.value in analysis.tables.gather_methods:
        return isinstance(analysis.parent(parent), cst.Call)
    return False


def gathered_cast(analysis: ModuleAnalysis, call: cst.Call) -> Optional[str]:
    """'direct' for `pool.to(d)[idx]`, 'variable' for `x = pool.to(d)` only ever gathered."""
    if is_gather_use(analysis, call):
        return "direct"
    parent = analysis.parent(call)
    if not (isinstance(parent, cst.Assign) and len(parent.targets) == 1 and isinstance(parent.targets[0].target, cst.Name)):
        return None
    name = parent.targets[0].target
    scope = analysis.scopes.get(name)
    if scope is None or len([x for x in scope.assignments[name.value]]) != 1:
        return None
    uses = [access.node for access in scope.accesses[name.value]]
    if uses and all(isinstance(u, cst.Name) and is_gather_use(analysis, u) for u in uses):
        return "variable"
    return None


def names_dtype_attribute(call: cst.Call) -> bool:
    """`.to(q.dtype)` names a dtype; `.to(other_tensor)` does not."""
    for arg in call.args:
        if isinstance(arg.value, cst.Attribute) and arg.value.attr.value == "dtype":
            return True
    return False
