"""CL003 cast-before-gather."""
from __future__ import annotations

from typing import List, Optional

import libcst as cst

from castlint.analysis import ModuleAnalysis
from castlint.checks.base import COST_HINT, FileContext, POOL_FLOW, Rule, pool_cast_cost
from castlint.models import Finding, Fix, FixSafety, Severity


def _is_gather_use(a: ModuleAnalysis, node: cst.CSTNode) -> bool:
    """Is node (a cast result) consumed by a gather: `node[idx]` or `node.index_select(...)`?"""
    parent = a.parent(node)
    if isinstance(parent, cst.Subscript) and parent.value is node:
        return not a.subscript_keeps_whole(parent)
    if isinstance(parent, cst.Attribute) and parent.value is node and parent.attr.value in a.tables.gather_methods:
        return isinstance(a.parent(parent), cst.Call)
    return False


def gathered_cast(a: ModuleAnalysis, call: cst.Call) -> Optional[str]:
    """'direct' for `pool.to(d)[idx]`, 'variable' for `x = pool.to(d)` only ever gathered."""
    if _is_gather_use(a, call):
        return "direct"
    parent = a.parent(call)
    if not (isinstance(parent, cst.Assign) and len(parent.targets) == 1 and isinstance(parent.targets[0].target, cst.Name)):
        return None
    name = parent.targets[0].target
    scope = a.scopes.get(name)
    if scope is None or len([x for x in scope.assignments[name.value]]) != 1:
        return None
    uses = [access.node for access in scope.accesses[name.value]]
    if uses and all(isinstance(u, cst.Name) and _is_gather_use(a, u) for u in uses):
        return "variable"
    return None


class CastBeforeGather(Rule):
    code = "CL003"
    fix = "safe/unsafe"
    scope = POOL_FLOW
    name = "cast-before-gather"
    summary = "A whole pool is converted and then only a few slots of it are read"
    what_it_does = (
        "Flags `pool.to(d)[idx]`, `pool.to(d).index_select(...)` and `x = pool.to(d)` "
        "where x is afterwards only gathered, for x a whole KV pool."
    )
    why_it_matters = (
        "The conversion copies every slot of the pool but only the gathered rows are "
        "used. Gathering first and converting the gathered rows moves bytes in "
        "proportion to the batch, not to the pool. This is the fix for backends with "
        "no native FP8 path (FA3 MLA, xpu)."
    )
    example = "rows = self.pool.get_key_buffer(layer_id).to(torch.bfloat16)[loc]"
    fix_safety = (
        "Safe: an elementwise dtype conversion commutes with a gather, so "
        "`x[idx].to(d)` is bit-identical to `x.to(d)[idx]` - when every read of the converted "
        "pool is rewritten (comprehensions and lambdas included), the dtype expression is not "
        "rebound and nothing writes the pool between the old and the new position of the cast. "
        "A rebinding or a store in between (set_kv_buffer, `pool[i] = `, `copy_`) means no fix. "
        "Unsafe when that cannot be decided (a call that receives the pool or its owner, a read "
        "inside a lambda or generator) or when the cast also moves the tensor to another device "
        "or takes another tensor's dtype and device (`.to(other)`): the index would then be "
        "applied on a different device. Unsafe fixes are applied only with --unsafe-fixes."
    )
    VALID = (
        "def f(self, layer, loc):\n"
        "    return self.pool.get_key_buffer(layer.layer_id)[loc].to(torch.bfloat16)\n",
        "def f(self, layer):\n"
        "    kv = self.pool.get_key_buffer(layer.layer_id).to(torch.bfloat16)\n"
        "    return kv[:, :, :512]\n",
    )
    INVALID = (
        ("def f(self, layer, loc):\n"
         "    return self.pool.get_key_buffer(layer.layer_id).to(torch.bfloat16)[loc]\n", (2,)),
        ("def f(self, layer, loc):\n"
         "    kv = self.pool.get_key_buffer(layer.layer_id).float()\n"
         "    a = kv[loc]\n"
         "    return kv.index_select(0, loc) + a\n", (2,)),
    )

    def triggers(self, words) -> tuple:
        # a pool and a conversion, or a whole cache that arrives as a parameter
        return ((words.pools, words.casts),) + words.conventions

    def check(self, ctx: FileContext) -> List[Finding]:
        a = ctx.analysis
        findings = []
        for call, target in a.pool_casts():
            form = gathered_cast(a, call)
            if form is None:
                continue
            # The codemod's own safety proof (imported late: castlint.fixes imports the checks).
            from castlint.fixes.cast_after_gather import assess

            plan = assess(a, call)
            cost = pool_cast_cost(ctx, target)
            description = f"move the cast after the gather ({form} form)"
            if plan.safety == FixSafety.UNSAFE:
                description += f"; unsafe: {plan.reason}"
            findings.append(self.finding(
                ctx, call,
                f"cast to {target} before a gather converts the whole pool ({cost.describe()}); "
                f"gather first, then cast; {COST_HINT}",
                Severity.ERROR if a.in_hot_path(call) else Severity.WARNING,
                cost=cost,
                fix=Fix("cast-after-gather", plan.safety, description) if plan.safety is not None else None,
                unfixable_reason=None if plan.safety is not None else
                f"the cast cannot move after the gather: {plan.reason}",
            ))
        return findings


def _dtype_of_dtype_attr(call: cst.Call) -> bool:
    """`.to(q.dtype)` names a dtype; `.to(other_tensor)` does not."""
    for arg in call.args:
        if isinstance(arg.value, cst.Attribute) and arg.value.attr.value == "dtype":
            return True
    return False
