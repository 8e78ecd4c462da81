"""CL003's fix: move a dtype cast after the gather that follows it.

`pool.to(d)[idx]` -> `pool[idx].to(d)`; `pool.to(d).index_select(0, i)` ->
`pool.index_select(0, i).to(d)`; `x = pool.to(d)` used only as `x[idx]` ->
`x = pool` and `x[idx].to(d)`. Bit-identical: an elementwise conversion
commutes with a gather.
"""
from __future__ import annotations

from typing import Dict, List, Set, Tuple

import libcst as cst

from castlint.analysis import Origin
from castlint.checks.base import FileContext
from castlint.checks.cast_before_gather import CastBeforeGather, gathered_cast
from castlint.models import FixSafety

CODEMOD = "cast-after-gather"


class _Rewrite(cst.CSTTransformer):
    def __init__(self, direct: Dict[int, cst.Call], variables: Dict[str, Tuple[int, cst.Call]], var_uses: Set[int]):
        super().__init__()
        self.direct = direct  # id(cast call) -> cast
        self.variables = variables  # name -> (id(assign value), cast)
        self.var_uses = var_uses  # id(Name) uses to wrap
        self.use_cast: Dict[int, cst.Call] = {}
        self.applied: List[str] = []

    @staticmethod
    def _recast(gathered: cst.BaseExpression, cast: cst.Call) -> cst.Call:
        return cst.Call(func=cst.Attribute(value=gathered, attr=cast.func.attr), args=cast.args)

    def leave_Subscript(self, original, updated):
        value = original.value
        if id(value) in self.direct:
            cast = self.direct[id(value)]
            inner = updated.value.func.value  # the receiver, as already transformed
            return self._recast(updated.with_changes(value=inner), cast)
        if isinstance(value, cst.Name) and id(value) in self.var_uses:
            return self._recast(updated, self.variables[value.value][1])
        return updated

    def leave_Call(self, original, updated):
        func = original.func
        if isinstance(func, cst.Attribute) and id(func.value) in self.direct:
            cast = self.direct[id(func.value)]
            receiver = updated.func.value.func.value
            return self._recast(updated.with_changes(func=updated.func.with_changes(value=receiver)), cast)
        if isinstance(func, cst.Attribute) and isinstance(func.value, cst.Name) and id(func.value) in self.var_uses:
            return self._recast(updated, self.variables[func.value.value][1])
        return updated

    def leave_Assign(self, original, updated):
        for name, (value_id, cast) in self.variables.items():
            if id(original.value) == value_id:
                return updated.with_changes(value=updated.value.func.value)
        return updated


def rewrite(module: cst.Module, ctx: FileContext, allowed: Set[Tuple[str, int, int]], unsafe: bool):
    a = ctx.analysis
    rule = CastBeforeGather()
    wanted = {}
    for finding in rule.check(ctx):
        if (finding.code, finding.start.line, finding.start.column) in allowed:
            wanted[(finding.start.line, finding.start.column)] = finding
    direct: Dict[int, cst.Call] = {}
    variables: Dict[str, Tuple[int, cst.Call]] = {}
    var_uses: Set[int] = set()
    skipped = []
    for call in a.nodes.calls:
        if not isinstance(call.func, cst.Attribute) or a.cast_target(call) is None:
            continue
        pos = a.position(call)
        finding = wanted.get((pos.start.line, pos.start.column + 1))
        if finding is None or a.origin(call.func.value) < Origin.POOL_TUPLE:
            continue
        if finding.fix.safety == FixSafety.UNSAFE and not unsafe:
            skipped.append((pos.start.line, "unsafe fix (the cast takes another tensor's dtype and device); use --unsafe-fixes"))
            continue
        form = gathered_cast(a, call)
        if form == "direct":
            direct[id(call)] = call
        elif form == "variable":
            assign = a.parent(call)
            name = assign.targets[0].target
            scope = a.scopes[name]
            variables[name.value] = (id(call), call)
            var_uses.update(id(access.node) for access in scope.accesses[name.value])
    if not direct and not variables:
        return module, [], skipped
    transformer = _Rewrite(direct, variables, var_uses)
    new = module.visit(transformer)
    applied = [f"cast moved after the gather ({len(direct)} direct, {len(variables)} variable)"]
    return new, applied, skipped
