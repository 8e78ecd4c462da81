"""CL003 cast-before-gather."""

from __future__ import annotations

from typing import TYPE_CHECKING, List

from castlint.checks.base import (
    COST_HINT,
    POOL_FLOW,
    FileContext,
    Invalid,
    Rule,
    chain_cost,
    pool_cast_cost,
    short_code,
)
from castlint.models import Finding, Fix, FixSafety, Severity

CODEMOD = "cast-after-gather"  # the codemod in fix.py, beside this rule

if TYPE_CHECKING:
    import libcst as cst


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
        "Unsafe when that cannot be decided (any call in between that rules/casts.toml "
        "[cast_motion] does not prove read-only, a read "
        "inside a lambda or generator) or when the cast also moves the tensor to another device "
        "or takes another tensor's dtype and device (`.to(other)`): the index would then be "
        "applied on a different device. Unsafe fixes are applied only with --unsafe-fixes."
    )
    VALID = (
        "def f(self, layer, loc):\n    return self.pool.get_key_buffer(layer.layer_id)[loc].to(torch.bfloat16)\n",
        "def f(self, layer):\n"
        "    kv = self.pool.get_key_buffer(layer.layer_id).to(torch.bfloat16)\n"
        "    return kv[:, :, :512]\n",
    )
    INVALID = (
        Invalid(
            "def f(self, layer, loc):\n    return self.pool.get_key_buffer(layer.layer_id).to(torch.bfloat16)[loc]\n",
            (2,),
            fixed="def f(self, layer, loc):\n"
            "    return self.pool.get_key_buffer(layer.layer_id)[loc].to(torch.bfloat16)\n",
        ),
        Invalid(
            "def f(self, layer, loc):\n"
            "    kv = self.pool.get_key_buffer(layer.layer_id).float()\n"
            "    a = kv[loc]\n"
            "    return kv.index_select(0, loc) + a\n",
            (2,),
            fixed="def f(self, layer, loc):\n"
            "    kv = self.pool.get_key_buffer(layer.layer_id)\n"
            "    a = kv[loc].float()\n"
            "    return kv.index_select(0, loc).float() + a\n",
        ),
    )

    def triggers(self, words) -> tuple:
        return words.pool_conversions

    def check(self, ctx: FileContext) -> List[Finding]:
        from castlint.analysis.gathers import gathered_cast, gathered_later

        analysis = ctx.analysis
        findings = []
        for call, target in analysis.pool_casts():
            if gathered_cast(analysis, call) is not None:
                findings.append(self._gathered(ctx, call, target))
            elif analysis.gather_consumer(call) == "function":
                findings.append(self._gathered_by_function(ctx, call, target))
            elif gathered_later(analysis, call):
                findings.append(self._gathered_later(ctx, call, target, None))
        for call, target, through in analysis.call_conversions():
            if gathered_later(analysis, call):
                findings.append(self._gathered_later(ctx, call, target, through))
        return findings

    def _gathered_later(self, ctx: FileContext, call: cst.Call, target: str, through) -> Finding:
        """A cast whose result is reshaped (or bound to a name, or made by a held cast) and then
        gathered: no codemod moves it yet."""
        analysis = ctx.analysis
        cost = (
            chain_cost(ctx, [t for _, t in analysis.cast_chain(call)])
            if through is None
            else pool_cast_cost(ctx, target)
        )
        how = f" through `{through}`" if through else ""
        return self.finding(
            ctx,
            call,
            f"cast to {target}{how} before a gather converts the whole pool ({cost.describe()}); gather first, "
            f"then cast; {COST_HINT}",
            Severity.ERROR if analysis.in_hot_path(call) else Severity.WARNING,
            cost=cost,
            unfixable_reason="the gather comes after a reshape, a name or a held cast: gather the rows first "
            "and convert those by hand",
        )

    def _gathered(self, ctx: FileContext, call: cst.Call, target: str) -> Finding:
        analysis = ctx.analysis
        from castlint.analysis.cast_motion import assess

        move = assess(analysis, call)  # the proof the codemod applies
        cost = pool_cast_cost(ctx, target)
        description = f"move the cast after the gather ({move.form} form)"
        if move.safety == FixSafety.UNSAFE:
            description += f"; unsafe: {move.reason}"
        return self.finding(
            ctx,
            call,
            f"cast to {target} before a gather converts the whole pool ({cost.describe()}); "
            f"gather first, then cast; {COST_HINT}",
            Severity.ERROR if analysis.in_hot_path(call) else Severity.WARNING,
            cost=cost,
            fix=Fix(CODEMOD, move.safety, description, site=move) if move.safety is not None else None,
            unfixable_reason=None
            if move.safety is not None
            else f"the cast cannot move after the gather: {move.reason}",
        )

    def _gathered_by_function(self, ctx: FileContext, call: cst.Call, target: str) -> Finding:
        """`torch.index_select(pool.to(d), 0, idx)`: no codemod moves a cast out of a function's argument yet."""
        analysis = ctx.analysis
        chain = analysis.cast_chain(call)
        cost = chain_cost(ctx, [t for _, t in chain])
        gather = short_code(analysis.code(analysis.parent(analysis.parent(call)).func))
        return self.finding(
            ctx,
            call,
            f"cast to {target} before a gather ({gather}) converts the whole pool ({cost.describe()}); gather "
            f"first, then cast; {COST_HINT}",
            Severity.ERROR if analysis.in_hot_path(call) else Severity.WARNING,
            cost=cost,
            unfixable_reason="the gather is a function call: move the cast after it by hand "
            "(`torch.index_select(pool, 0, idx).to(d)` is bit-identical)",
        )
