"""CL002 plan-forces-kv-dtype."""
from __future__ import annotations

from typing import List, Optional, Tuple

import libcst as cst

from castlint.analysis.dataflow import ModuleAnalysis, dotted, iter_nodes
from castlint.checks.base import FileContext, PLAN_CALLS, Rule
from castlint.models import Finding, Fix, FixSafety, Severity
from castlint.tables import Wrapper


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
        ("class U:\n"
         "    def __init__(self, model_runner):\n"
         "        self.data_type = model_runner.dtype\n"
         "    def call(self, wrapper: BatchMLAPagedAttentionWrapper):\n"
         "        wrapper.plan(1, 2, 3, 4, 5, 6, 7, 8, 9, 10, self.data_type, self.data_type)\n", (5,)),
        ("class U:\n"
         "    def __init__(self, model_runner):\n"
         "        self.data_type = model_runner.dtype\n"
         "        self.q_data_type = model_runner.dtype\n"
         "    def call(self, w):\n"
         "        w.plan(1, 2, 3, 4, 5, 6, 7, 8, 9, 10,\n"
         "               q_data_type=self.q_data_type, kv_data_type=self.data_type)\n", (6,)),
        ("def go(model_runner, w: BatchDecodeWithPagedKVCacheWrapper):\n"
         "    w.begin_forward(1, 2, 3, 4, 5, 6, 7, q_data_type=model_runner.dtype)\n", (2,)),
        # sglang <= 0.4.3, --enable-flashinfer-mla: q planned in the KV-cache dtype
        ("class U:\n"
         "    def __init__(self, model_runner):\n"
         "        self.data_type = model_runner.kv_cache_dtype\n"
         "    def call(self, wrapper: Union[BatchDecodeWithPagedKVCacheWrapper, BatchMLAPagedAttentionWrapper]):\n"
         "        wrapper.plan(1, 2, 3, 4, 5, 512, 64, 1, False, 0.1, self.data_type, self.data_type)\n", (5,)),
    )

    def triggers(self, words) -> tuple:
        return ((words.wrappers, words.kv_dtype_reach),)

    def check(self, ctx: FileContext) -> List[Finding]:
        a = ctx.analysis
        if not _kv_dtype_in_reach(ctx):
            return []
        findings = []
        for call in a.nodes.calls:
            wrapper = match_wrapper(ctx, call)
            if wrapper is None:
                continue
            q_arg = dtype_argument(call, wrapper, "q")
            kv_arg = dtype_argument(call, wrapper, "kv")
            if q_arg is None:
                continue
            if kv_arg is None and not _receiver_is_known(ctx, call, wrapper):
                continue  # e.g. a ragged wrapper, which has no KV cache to describe
            if kv_arg is None:
                message = (f"{wrapper.cls}.plan sets q_data_type but no kv_data_type: the KV cache "
                           f"is assumed to be in the q dtype; pass the KV-cache dtype")
            else:
                q_src, kv_src = a.resolve_value(q_arg), a.resolve_value(kv_arg)
                if q_src != kv_src:
                    continue
                shown = ", ".join(q_src)
                if any(_mentions_kv_cache_dtype(ctx, s) for s in q_src):
                    message = (f"q_data_type and kv_data_type are both the KV-cache dtype (`{shown}`): "
                               f"q is declared FP8 when the cache is FP8; plan q with the model dtype "
                               f"and kv with the KV-cache dtype")
                else:
                    message = (f"kv_data_type resolves to the same value as q_data_type (`{shown}`): "
                               f"the FP8 pool must then be cast to the q dtype before run() (CL001); "
                               f"plan kv with the KV-cache dtype")
            fix = _fix_for(ctx)
            findings.append(self.finding(
                ctx, call, message, Severity.WARNING, fix=fix,
                unfixable_reason=None if fix else NO_CAST_REASON,
            ))
        return findings


def _fix_for(ctx: FileContext) -> Optional[Fix]:
    """Fixable only together with a whole-pool cast that feeds this backend's run()."""
    from castlint.checks.whole_pool_cast import mla_native_fix

    a = ctx.analysis
    cached = getattr(a, "_cl002_fix", False)
    if cached is not False:
        return cached
    fix = None
    for call, _ in a.pool_casts():
        found, _ = mla_native_fix(ctx, call)
        if found is not None:
            fix = Fix(found.codemod, FixSafety.SAFE,
                      "plan kv with the KV-cache dtype behind the init-time FP8-KV guard, "
                      "together with the whole-pool cast it forces")
            break
    a._cl002_fix = fix
    return fix


NO_CAST_REASON = (
    "no whole-pool cast feeds this plan's run(), so there is nothing to make native; "
    "when q is planned in the KV-cache dtype (sglang <= 0.4.6.post4) run() gets q in FP8. "
    "Plan q with the model dtype and kv with the KV-cache dtype once your FlashInfer has "
    "mixed-dtype MLA (>= 0.6.14 on SM90), changing plan() and run() together"
)


def _receiver_is_known(ctx: FileContext, call: cst.Call, wrapper: Wrapper) -> bool:
    if isinstance(call.func, cst.Name):
        return True
    return wrapper.cls in (_annotation_classes(ctx.analysis, call.func.value) or ())


def _kv_dtype_in_reach(ctx: FileContext) -> bool:
    t = ctx.tables
    nodes = ctx.analysis.nodes
    return bool(nodes.attr_names & t.kv_cache_dtype_attributes or nodes.names & t.kv_cache_dtype_holders)


def _mentions_kv_cache_dtype(ctx: FileContext, text: str) -> bool:
    return any(attr in text for attr in ctx.tables.kv_cache_dtype_attributes)


def _annotation_class(a: ModuleAnalysis, receiver: cst.BaseExpression) -> Optional[str]:
    """The class named in the annotation of a parameter, or in `x = Class(...)` (the first
    one, for a Union)."""
    classes = _annotation_classes(a, receiver)
    return classes[0] if classes else None


def _annotation_classes(a: ModuleAnalysis, receiver: cst.BaseExpression) -> Optional[Tuple[str, ...]]:
    """The classes named in the annotation of a parameter (every member of a `Union[...]`,
    `Optional[...]` or `A | B`, as sglang <= 0.4.3 annotates its decode/MLA wrappers), or
    in `x = Class(...)`."""
    if isinstance(receiver, cst.Name):
        scope = a.scopes.get(receiver)
        if scope is None:
            return None
        for assignment in scope.assignments[receiver.value]:
            node = getattr(assignment, "node", None)
            param = node if isinstance(node, cst.Param) else a.parent(node) if node is not None else None
            if isinstance(param, cst.Param) and param.annotation is not None:
                return _classes_named(a, param.annotation.annotation)
            if isinstance(node, cst.Name):
                value, _ = a.assigned_value(node)
                if isinstance(value, cst.Call):
                    name = (dotted(value.func) or "").rsplit(".", 1)[-1]
                    return (name,) if name else None
    if isinstance(receiver, cst.Attribute) and isinstance(receiver.value, cst.Name) and receiver.value.value == "self":
        cls = a.enclosing_class(receiver)
        if cls is not None:
            for value in a.self_attr_values(cls, receiver.attr.value):
                if isinstance(value, cst.Call):
                    name = (dotted(value.func) or "").rsplit(".", 1)[-1]
                    return (name,) if name else None
    return None


_TYPING_WRAPPERS = {"Union", "Optional", "typing", "List", "Tuple", "Sequence", "None", "Type"}


def _classes_named(a: ModuleAnalysis, annotation: cst.BaseExpression) -> Tuple[str, ...]:
    if isinstance(annotation, cst.SimpleString):
        text = annotation.evaluated_value if isinstance(annotation.evaluated_value, str) else ""
        parts = [p.strip() for p in text.replace("Union[", ",").replace("Optional[", ",")
                 .replace("]", ",").replace("|", ",").split(",")]
        return tuple(p.rsplit(".", 1)[-1] for p in parts if p and p.rsplit(".", 1)[-1] not in _TYPING_WRAPPERS)
    text = dotted(annotation)
    if text is not None:
        return (text.rsplit(".", 1)[-1],)
    out = []
    for node in iter_nodes(annotation, (cst.Name, cst.Attribute, cst.SimpleString)):
        if isinstance(node, cst.SimpleString):
            out.extend(_classes_named(a, node))
        elif isinstance(node, cst.Name) and node.value not in _TYPING_WRAPPERS and not isinstance(
                a.parent(node), cst.Attribute):
            out.append(node.value)
        elif isinstance(node, cst.Attribute) and not isinstance(a.parent(node), cst.Attribute):
            out.append(node.attr.value)
    return tuple(dict.fromkeys(out))


def match_wrapper(ctx: FileContext, call: cst.Call) -> Optional[Wrapper]:
    t, a = ctx.tables, ctx.analysis
    if isinstance(call.func, cst.Name):
        return t.wrapper_function(call.func.value)
    if not isinstance(call.func, cst.Attribute):
        return None
    candidates = t.wrapper_for_method(call.func.attr.value)
    if not candidates:
        return None
    positional = [arg for arg in call.args if arg.keyword is None and not arg.star]
    keywords = {arg.keyword.value for arg in call.args if arg.keyword is not None}
    classes = _annotation_classes(a, call.func.value)
    if classes is not None:
        named = [w for w in candidates if w.cls in classes]
        # the annotated class whose dtype parameters this call actually passes: sglang
        # <= 0.4.3 annotates a paged-prefill wrapper that is an MLA wrapper under
        # --enable-flashinfer-mla, and calls it with the MLA plan's 12 arguments
        if not named:
            return None
        fitting = [w for w in named if _passes_dtypes(w, positional, keywords)]
        if fitting:
            return fitting[0]
        # none of the annotated wrappers takes the dtypes where this call passes them:
        # tell the wrapper by the call itself, below
    keyworded = [w for w in candidates if keywords & ({w.q_dtype.keyword, w.kv_dtype.keyword} | set(w.aliases))]
    if keyworded:
        return keyworded[0]
    by_arity = [w for w in candidates if w.kv_dtype.index is not None and len(positional) == w.kv_dtype.index + 1]
    if by_arity and len({(w.q_dtype.index, w.kv_dtype.index) for w in by_arity}) == 1:
        return by_arity[0]
    return None


def _passes_dtypes(w: Wrapper, positional, keywords) -> bool:
    """Does a call with these arguments pass w's q dtype (positionally or by keyword)?"""
    if w.q_dtype.keyword in keywords:
        return True
    return w.q_dtype.index is not None and len(positional) > w.q_dtype.index


def dtype_argument(call: cst.Call, wrapper: Wrapper, which: str) -> Optional[cst.BaseExpression]:
    param = wrapper.q_dtype if which == "q" else wrapper.kv_dtype
    names = {param.keyword} | (set(wrapper.aliases) if which == "kv" else set())
    for arg in call.args:
        if arg.keyword is not None and arg.keyword.value in names:
            return arg.value
    positional = [arg for arg in call.args if arg.keyword is None and not arg.star]
    if param.index is not None and param.index < len(positional):
        return positional[param.index].value
    return None
