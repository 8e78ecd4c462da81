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
from castlint.checks.cast_before_gather import CastBeforeGather, _dtype_of_dtype_attr, gathered_cast
from castlint.models import FixSafety

CODEMOD = "cast-after-gather"


def _chain_depth(a, call: cst.Call) -> int:
    """How many dtype casts of a pool are stacked here: `pool.to(a).to(b)` is 2.

    The gather moves below all of them at once, so one fix run settles the chain."""
    depth, node = 1, call.func.value
    while (isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute)
           and a.cast_target(node) is not None and _dtype_of_dtype_attr(node) | _names_a_dtype(a, node)):
        depth, node = depth + 1, node.func.value
    return depth


def _names_a_dtype(a, call: cst.Call) -> bool:
    target = a.cast_target(call)
    return target is not None and not target.endswith(".dtype")


class _Rewrite(cst.CSTTransformer):
    def __init__(self, direct: Dict[int, int], variables: Dict[str, Tuple[int, int]], var_uses: Set[int]):
        super().__init__()
        self.direct = direct  # id(outer cast call) -> chain depth
        self.variables = variables  # name -> (id(assigned cast call), chain depth)
        self.var_uses = var_uses  # id(Name) uses to wrap
        self.chains: Dict[str, List[cst.Call]] = {}
        self.applied: List[str] = []

    @staticmethod
    def _split(call: cst.Call, depth: int) -> Tuple[cst.BaseExpression, List[cst.Call]]:
        """(the pool expression, the casts applied to it, innermost first)."""
        chain, node = [], call
        for _ in range(depth):
            chain.append(node)
            node = node.func.value
        return node, list(reversed(chain))

    @staticmethod
    def _recast(gathered: cst.BaseExpression, chain: List[cst.Call]) -> cst.BaseExpression:
        for cast in chain:
            gathered = cst.Call(func=cst.Attribute(value=gathered, attr=cast.func.attr), args=cast.args)
        return gathered

    def leave_Subscript(self, original, updated):
        value = original.value
        if id(value) in self.direct:
            base, chain = self._split(updated.value, self.direct[id(value)])
            return self._recast(updated.with_changes(value=base), chain)
        if isinstance(value, cst.Name) and id(value) in self.var_uses:
            return self._recast(updated, self.chains[value.value])
        return updated

    def leave_Call(self, original, updated):
        func = original.func
        if isinstance(func, cst.Attribute) and id(func.value) in self.direct:
            base, chain = self._split(updated.func.value, self.direct[id(func.value)])
            return self._recast(updated.with_changes(func=updated.func.with_changes(value=base)), chain)
        if isinstance(func, cst.Attribute) and isinstance(func.value, cst.Name) and id(func.value) in self.var_uses:
            return self._recast(updated, self.chains[func.value.value])
        return updated

    def leave_Assign(self, original, updated):
        for name, (value_id, depth) in self.variables.items():
            if id(original.value) == value_id:
                base, chain = self._split(updated.value, depth)
                self.chains[name] = chain
                return updated.with_changes(value=base)
        return updated


def rewrite(module: cst.Module, ctx: FileContext, allowed: Set[Tuple[str, int, int]], unsafe: bool):
    a = ctx.analysis
    rule = CastBeforeGather()
    wanted = {}
    for finding in rule.check(ctx):
        if (finding.code, finding.start.line, finding.start.column) in allowed:
            wanted[(finding.start.line, finding.start.column)] = finding
    direct: Dict[int, int] = {}
    variables: Dict[str, Tuple[int, int]] = {}
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
            direct[id(call)] = _chain_depth(a, call)
        elif form == "variable":
            assign = a.parent(call)
            name = assign.targets[0].target
            scope = a.scopes[name]
            variables[name.value] = (id(call), _chain_depth(a, call))
            var_uses.update(id(access.node) for access in scope.accesses[name.value])
    if not direct and not variables:
        return module, [], skipped
    transformer = _Rewrite(direct, variables, var_uses)
    new = module.visit(transformer)
    applied = [f"cast moved after the gather ({len(direct)} direct, {len(variables)} variable)"]
    return new, applied, skipped
