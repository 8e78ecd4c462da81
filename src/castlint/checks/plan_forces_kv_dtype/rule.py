"""CL002 plan-forces-kv-dtype."""

from __future__ import annotations

from typing import TYPE_CHECKING, List, Optional

from castlint.checks.base import PLAN_CALLS, FileContext, Rule
from castlint.mla_names import MLA_CODEMOD
from castlint.models import Finding, Fix, FixSafety, Severity

if TYPE_CHECKING:
    import libcst as cst


class PlanForcesKvDtype(Rule):
    code = "CL002"
    fix = "safe"
    scope = PLAN_CALLS
    name = "plan-forces-kv-dtype"
    summary = "An attention plan() declares the KV cache in the q dtype (or omits its dtype)"
    what_it_does = (
        "Flags plan()/begin_forward() of an attention wrapper listed in "
        "rules/flashinfer.toml (and sglang's fast_mla_*_plan) whose kv dtype argument "
        "resolves to the same value as its q dtype argument, through variables and "
        "`self.` attributes set in __init__, or whose kv dtype is omitted, while a "
        "KV-cache dtype is in reach (e.g. `model_runner.kv_cache_dtype`). Positional "
        "(by index, per table) and keyword forms, and deprecated aliases such as "
        "`data_type`, are handled."
    )
    why_it_matters = (
        "FlashInfer plans separate q and kv dtypes. Declaring kv as the model dtype "
        "forces the caller to convert the whole FP8 pool to BF16 before run() (CL001); "
        "declaring q as the FP8 KV dtype (sglang <= 0.4.6.post4) makes q FP8 as well."
    )
    example = (
        "self.data_type = model_runner.dtype\n"
        "wrapper.plan(qo_indptr, kv_indptr, kv_indices, kv_lens, heads, 512, 64, 1,\n"
        "             False, sm_scale, self.data_type, self.data_type)"
    )
    fix_safety = (
        "Fixed together with the whole-pool cast it forces, by the FlashInfer MLA "
        "codemod (plan and run must change together, behind one guard). Changing the "
        "kv dtype of a plan alone is not offered: run() would then reject the BF16 copy."
    )
    VALID = (
        "class U:\n"
        "    def __init__(self, model_runner):\n"
        "        self.q_data_type = model_runner.dtype\n"
        "        self.kv_data_type = model_runner.kv_cache_dtype\n"
        "    def call(self, w):\n"
        "        w.plan(1, 2, 3, 4, 5, 6, 7, 8, 9, 10, self.q_data_type, self.kv_data_type)\n",
    )
    INVALID = (
        (
            "class U:\n"
            "    def __init__(self, model_runner):\n"
            "        self.data_type = model_runner.dtype\n"
            "    def call(self, wrapper: BatchMLAPagedAttentionWrapper):\n"
            "        wrapper.plan(1, 2, 3, 4, 5, 6, 7, 8, 9, 10, self.data_type, self.data_type)\n",
            (5,),
        ),
        (
            "class U:\n"
            "    def __init__(self, model_runner):\n"
            "        self.data_type = model_runner.dtype\n"
            "        self.q_data_type = model_runner.dtype\n"
            "    def call(self, w):\n"
            "        w.plan(1, 2, 3, 4, 5, 6, 7, 8, 9, 10,\n"
            "               q_data_type=self.q_data_type, kv_data_type=self.data_type)\n",
            (6,),
        ),
        (
            "def go(model_runner, w: BatchDecodeWithPagedKVCacheWrapper):\n"
            "    w.begin_forward(1, 2, 3, 4, 5, 6, 7, q_data_type=model_runner.dtype)\n",
            (2,),
        ),
        # sglang <= 0.4.3, --enable-flashinfer-mla: q planned in the KV-cache dtype
        (
            "class U:\n"
            "    def __init__(self, model_runner):\n"
            "        self.data_type = model_runner.kv_cache_dtype\n"
            "    def call(self, wrapper: Union[BatchDecodeWithPagedKVCacheWrapper, BatchMLAPagedAttentionWrapper]):\n"
            "        wrapper.plan(1, 2, 3, 4, 5, 512, 64, 1, False, 0.1, self.data_type, self.data_type)\n",
            (5,),
        ),
    )

    def triggers(self, words) -> tuple:
        return ((words.wrappers, words.kv_dtype_reach),)

    def check(self, ctx: FileContext) -> List[Finding]:
        from castlint.analysis.wrappers import (
            dtype_argument,
            dtypes_from_callers,
            kv_q_on_fp8_path,
            kv_q_on_unguarded_choice,
            match_wrapper,
            receiver_is_known,
            resolved_call,
        )

        analysis = ctx.analysis
        if not _kv_dtype_in_reach(ctx):
            return []
        findings = []
        helped = set()  # callers of a plan helper already reported
        for original in analysis.nodes.calls:
            call = resolved_call(analysis, original)  # a partial, getattr, *args, **kwargs form: as a plain call
            wrapper = match_wrapper(analysis, call)
            if wrapper is None:
                continue
            q_arg = dtype_argument(call, wrapper, "q")
            kv_arg = dtype_argument(call, wrapper, "kv")
            if q_arg is None:
                continue
            if kv_arg is None and not receiver_is_known(analysis, call, wrapper):
                continue  # e.g. a ragged wrapper, which has no KV cache to describe
            paired = None
            if kv_arg is None:
                message = (
                    f"{wrapper.cls}.plan sets q_data_type but no kv_data_type: the KV cache "
                    f"is assumed to be in the q dtype; pass the KV-cache dtype"
                )
            else:
                q_src, kv_src = analysis.resolve_value(q_arg), analysis.resolve_value(kv_arg)
                # a choice between dtype pairs (`q, kv = native() if c else same()`): one same pair
                if q_src != kv_src:
                    paired = next((q for q, kv in analysis.paired_values(q_arg, kv_arg) if q == kv), None)
                if paired:
                    q_src, kv_src = paired, paired
                if q_src != kv_src and kv_q_on_fp8_path(analysis, kv_arg, q_src):
                    kv_src = q_src  # a dict's kv keyword is the q dtype on a path an FP8 pool may take
                if q_src != kv_src and kv_q_on_unguarded_choice(analysis, kv_arg, q_src):
                    kv_src = q_src  # `q if self.sm < (8, 9) else cache`: the q dtype where an FP8 pool may be
                if q_src != kv_src:
                    # a plan helper given its dtypes: reported at each caller that passes kv as q
                    for caller, q_from, kv_from in dtypes_from_callers(analysis, original, q_arg, kv_arg):
                        if (
                            q_from == kv_from
                            and id(caller) not in helped
                            and (caller is original or match_wrapper(analysis, caller) is None)
                        ):
                            helped.add(id(caller))
                            findings.append(
                                self.finding(
                                    ctx,
                                    caller,
                                    _same_dtypes(ctx, q_from),
                                    Severity.WARNING,
                                    unfixable_reason=HELPER_REASON,
                                )
                            )
                    continue
                if _q_declared_cache_dtype(ctx, q_arg, q_src):
                    continue  # `q_data_type=self.kv_cache_dtype`: an FP8 q planned on purpose
                message = _same_dtypes(ctx, q_src)
            # the codemod rewrites plain calls only, whose dtypes are no ternary or walrus (which
            # the fix-equivalence harness does not cover: such a finding is reported, not fixed)
            chosen = any(_chosen(analysis, a) for a in (q_arg, kv_arg) if a is not None)
            plain = not paired and call is original and not chosen
            fix = _fix_for(ctx, call) if plain else None
            findings.append(
                self.finding(
                    ctx,
                    original,
                    message,
                    Severity.WARNING,
                    fix=fix,
                    unfixable_reason=None if fix else NO_CAST_REASON,
                )
            )
        return findings


def _chosen(analysis, arg: cst.BaseExpression) -> bool:
    """Is a dtype argument a choice or a binding (`a if c else b`, `a or b`, `(d := x)`), or a name
    bound to one (ModuleAnalysis.resolve_value reads through them)?"""
    import libcst as cst

    kinds = (cst.IfExp, cst.BooleanOperation, cst.NamedExpr)
    if isinstance(arg, kinds):
        return True
    if isinstance(arg, cst.Name):
        for assignment in analysis.reaching(arg):
            node = assignment.node
            if isinstance(analysis.parents.get(node), cst.NamedExpr):
                return True
            kind, value, _ = analysis.binding(node) if isinstance(node, cst.Name) else (None, None, ())
            if kind == "assign" and isinstance(value, kinds):
                return True
    return False


def _q_declared_cache_dtype(ctx: FileContext, q_arg, q_src) -> bool:
    """Is q planned in the KV-cache dtype by its own argument spelling that dtype itself
    (`q_data_type=self.kv_cache_dtype`, as TensorRT-LLM's native FP8 path plans an FP8 q on
    purpose)? Not a dtype shared under another name (sglang <= 0.4.6's `self.data_type`,
    assigned the KV-cache dtype and passed for both), which is reported."""
    import libcst as cst

    return (
        isinstance(q_arg, cst.Attribute)
        and q_arg.attr.value in ctx.tables.kv_cache_dtype_attributes
        and all(_mentions_kv_cache_dtype(ctx, s) for s in q_src)
    )


def _same_dtypes(ctx: FileContext, q_src) -> str:
    shown = ", ".join(q_src)
    if any(_mentions_kv_cache_dtype(ctx, s) for s in q_src):
        return (
            f"q_data_type and kv_data_type are both the KV-cache dtype (`{shown}`): "
            f"q is declared FP8 when the cache is FP8; plan q with the model dtype "
            f"and kv with the KV-cache dtype"
        )
    return (
        f"kv_data_type resolves to the same value as q_data_type (`{shown}`): "
        f"the FP8 pool must then be cast to the q dtype before run() (CL001); "
        f"plan kv with the KV-cache dtype"
    )


def _fix_for(ctx: FileContext, call: cst.Call) -> Optional[Fix]:
    """Fixable only together with a whole-pool cast that feeds this backend's run()."""
    from castlint.analysis.mla_sites import any_mla_fixable

    if not any_mla_fixable(ctx):
        return None
    return Fix(
        MLA_CODEMOD,
        FixSafety.SAFE,
        "plan kv with the KV-cache dtype behind the init-time FP8-KV guard, "
        "together with the whole-pool cast it forces",
        site=call,
    )


NO_CAST_REASON = (
    "no whole-pool cast feeds this plan's run(), so there is nothing to make native; "
    "when q is planned in the KV-cache dtype (sglang <= 0.4.6.post4) run() gets q in FP8. "
    "Plan q with the model dtype and kv with the KV-cache dtype once your FlashInfer has "
    "mixed-dtype MLA (>= 0.6.14 on SM90), changing plan() and run() together"
)

HELPER_REASON = (
    "the dtypes reach plan() through a helper's parameters; the codemod rewrites a plain plan() "
    "call only: pass the KV-cache dtype here for kv"
)


def _kv_dtype_in_reach(ctx: FileContext) -> bool:
    t = ctx.tables
    nodes = ctx.analysis.nodes
    return bool(
        nodes.attr_names & (t.kv_cache_dtype_attributes | t.kv_cache_dtype_holder_attributes)
        or nodes.names & t.kv_cache_dtype_holders
    )


def _mentions_kv_cache_dtype(ctx: FileContext, text: str) -> bool:
    return any(attr in text for attr in ctx.tables.kv_cache_dtype_attributes)
