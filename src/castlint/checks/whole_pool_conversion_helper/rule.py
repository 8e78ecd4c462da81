"""CL004 whole-pool-conversion-helper."""

from __future__ import annotations

from typing import TYPE_CHECKING, List

from castlint.checks.base import COST_HINT, POOL_FLOW, FileContext, Rule, proven_fix
from castlint.models import Cost, Finding, Fix, FixSafety, Severity
from castlint.tables import ConversionHelper

if TYPE_CHECKING:
    import libcst as cst


class WholePoolConversionHelper(Rule):
    code = "CL004"
    fix = "safe/unsafe"
    scope = POOL_FLOW
    name = "whole-pool-conversion-helper"
    summary = "A helper quantizes or dequantizes an entire KV pool"
    what_it_does = (
        "Flags calls to the helpers listed as `conversion_helper` in rules/*.toml "
        "(e.g. sglang's `quantize_k_cache`, the FP4 pools' `batched_dequantize`), under "
        "any import alias, when the converted argument is a whole pool, followed through "
        "variables, views and parameters. Inside a pool accessor (`get_key_buffer` of "
        "sglang's FP4 KV pools dequantizes the layer's whole arena) the finding is the "
        "accessor's: every backend that reads the pool pays it; so is a dtype cast inside a "
        "pool accessor (`return self.k_buffer[i].to(self.dtype)`). The cost is the pool's own: "
        "the stored dtype the helper reads (with its block scales) and the dtype it writes. "
        "Calls on batch-sized tensors (the tokens being written) are not flagged. It also "
        "flags a backend read of an accessor that dequantizes its whole buffer on some of "
        "the engine's pools (rules/row_reads.toml [[dequantizing_accessor]]: sglang's FP4 "
        "pools) when the buffers reach a kernel that reads only the rows of an index tensor "
        "([[row_kernel]]: the Triton decode and extend kernels). Add your own helpers to a "
        "table listed in `extend-rules`."
    )
    why_it_matters = (
        "Like a whole-pool cast, a whole-pool (de)quantization touches every slot of the "
        "arena on every call, although the kernel reads only the live pages."
    )
    example = (
        "kv_cache = self.token_to_kv_pool.get_key_buffer(layer.layer_id)\n"
        "kv_cache = quantize_k_cache(kv_cache)  # inefficiently quantize the whole cache"
    )
    fix_safety = (
        "Inside a pool accessor whose dequantize is row-wise ([[row_wise_helper]]), the fix "
        "adds a rows getter beside it (`get_key_buffer_rows(layer_id, rows)`, derived from "
        "the accessor's body; the accessor is unchanged): safe, nothing calls it yet. At a "
        "row-index kernel that reads both accessors itself, the fix reads "
        "`k, v, rows = read_kv_rows(pool, layer, kv_indices)` before the call (a module it "
        "adds): the rows dequantized alone where the pool has rows getters, the original "
        "read otherwise. Safe when every call the statement made before the buffers is "
        "proven read-only, unsafe otherwise. Elsewhere no automatic fix: store the cache in "
        "the kernel's format, or convert only the pages selected by the page table."
    )
    VALID = (
        # another kernel of the same name (wave's): its contract is not known
        "from sglang.srt.layers.attention.wave_ops.decode_attention import decode_attention_fwd\n"
        "def forward_decode(self, q, layer, o, kv_indptr, kv_indices):\n"
        "    decode_attention_fwd(q, self.pool.get_key_buffer(layer.layer_id),\n"
        "                         self.pool.get_value_buffer(layer.layer_id), o, kv_indptr, kv_indices)\n",
        "def set_kv(self, layer, k):\n    k = quantize_k_cache(k.unsqueeze(1))\n",
        # the tokens being written, through an alias
        "from sglang.srt.layers.quantization.kvfp4_tensor import FP4MXBlock16KVQuantizeUtil as U\n"
        "def set_kv_buffer(self, layer, loc, cache_k):\n"
        "    packed, scales = U.batched_quantize(cache_k)\n"
        "    return U.batched_dequantize(packed, scales)\n",
    )
    INVALID = (
        (
            "def forward_decode(self, layer):\n"
            "    kv_cache = self.pool.get_key_buffer(layer.layer_id)\n"
            "    kv_cache = kv_cache.view(-1, 64, 1, 656)\n"
            "    return quantize_k_cache(kv_cache)\n",
            (4,),
        ),
        (
            "class B:\n"
            "    def forward(self, layer):\n"
            "        kv = self.pool.get_key_buffer(layer.layer_id)\n"
            "        return self._decode(kv)\n"
            "    def _decode(self, kv_cache):\n"
            "        return flashmla.dequantize_k_cache(kv_cache)\n",
            (6,),
        ),
        # an aliased import of the helper
        (
            "from sglang.srt.layers.attention.nsa.quant_k_cache import quantize_k_cache as qk\n"
            "def forward_decode(self, layer):\n"
            "    return qk(self.pool.get_key_buffer(layer.layer_id))\n",
            (3,),
        ),
        # an FP4 pool's accessor dequantizes its whole per-layer arena
        # a row-index kernel reads what the accessors of an FP4 pool would dequantize whole
        (
            "from sglang.kernels.ops.attention.decode_attention import decode_attention_fwd\n"
            "def forward_decode(self, q, layer, o, kv_indptr, kv_indices):\n"
            "    decode_attention_fwd(\n"
            "        q,\n"
            "        self.token_to_kv_pool.get_key_buffer(layer.layer_id),\n"
            "        self.token_to_kv_pool.get_value_buffer(layer.layer_id),\n"
            "        o, kv_indptr, kv_indices, layer.scaling)\n",
            (5,),
        ),
        (
            "class Fp4Pool:\n"
            "    def __init__(self, size, layer_num):\n"
            "        self.kv_buffer = [torch.zeros((size + 1, 1, 288), dtype=torch.uint8) for _ in range(layer_num)]\n"
            "        self.kv_scale_buffer = [torch.zeros((size + 1, 36), dtype=torch.uint8) for _ in "
            "range(layer_num)]\n"
            "    def get_key_buffer(self, layer_id):\n"
            "        packed = self.kv_buffer[layer_id - self.start_layer].view(torch.uint8)\n"
            "        scales = self.kv_scale_buffer[layer_id - self.start_layer]\n"
            "        return FP4MXBlock16KVQuantizeUtil.batched_dequantize(packed, scales)\n",
            (8,),
        ),
    )

    def triggers(self, words) -> tuple:
        # a helper, and something that can be a whole pool
        return (
            (words.helpers, words.pools | words.cache_parameters),
            (words.row_kernels, words.dequantizing_accessors),
            *words.pool_conversions,
        )  # a cast inside a pool accessor

    def check(self, ctx: FileContext) -> List[Finding]:
        import libcst as cst

        from castlint.analysis.dataflow import Origin
        from castlint.analysis.tree import dotted

        analysis, helpers = ctx.analysis, ctx.tables.conversion_helpers
        findings = []
        for call in analysis.nodes.calls:
            func = call.func
            if isinstance(func, cst.Name):
                name = func.value
                if name not in helpers:  # `from m import quantize_k_cache as qk`
                    name = (analysis.call_name(call) or name).rsplit(".", 1)[-1]
            elif isinstance(func, cst.Attribute):
                name = func.attr.value
            elif isinstance(func, (cst.Call, cst.Subscript)):
                name = ""  # getattr(fp8_kernel, "batched_dequantize")(...), table["deq"](...): held_callee
            else:
                continue
            helper = helpers.get(name)
            positional = [arg.value for arg in call.args if arg.keyword is None and not arg.star]
            if helper is None:  # through a partial, getattr or another name (castlint.analysis.dataflow)
                held = analysis.held_callee(call)
                if held is not None and held[0] in helpers:
                    name, positional = held
                    helper = helpers[name]
            if helper is None:
                continue
            if helper.arg >= len(positional) or analysis.origin(positional[helper.arg]) < Origin.POOL_TUPLE:
                continue
            cost = helper_cost(ctx, helper, call)
            accessor = analysis.enclosing_accessor(call)
            where = (
                f" inside the pool accessor `{accessor}`: every backend that reads the pool "
                f"through it pays it on every layer"
                if accessor
                else ""
            )
            shown = f"`{dotted(func) or name}`"
            if isinstance(func, cst.Name) and func.value != name:
                shown = f"`{name}` (imported as `{func.value}`)"
            fix, why_not = _rows_getter_fix(ctx, call) if accessor else (None, None)
            findings.append(
                self.finding(
                    ctx,
                    call,
                    f"{shown} {helper.direction}s a whole pool{where} ({cost.describe()}); "
                    f"convert only the pages the kernel reads; {COST_HINT}",
                    Severity.ERROR if analysis.in_hot_path(call) else Severity.WARNING,
                    cost=cost,
                    fix=fix,
                    unfixable_reason=None if fix else why_not or NO_FIX_REASON,
                )
            )
        findings += self.accessor_casts(ctx)
        findings += self.row_reads(ctx)
        return findings

    def accessor_casts(self, ctx: FileContext) -> List[Finding]:
        """A dtype cast inside a pool accessor: the accessor converts the whole per-layer
        buffer for every caller (a cast anywhere else is CL001)."""
        from castlint.analysis.gathers import gathered_cast, gathered_later
        from castlint.checks.base import chain_cost, pool_cast_cost, short_code

        analysis = ctx.analysis
        sites = [
            (call, target, None)
            for call, target in analysis.pool_casts()
            if gathered_cast(analysis, call) is None
            and analysis.gather_consumer(call) != "function"
            and not gathered_later(analysis, call)
        ]
        sites += list(analysis.pool_conversions())
        # an accessor that converts through a helper of the module (`return self._dequant(self.k[i], ...)`)
        sites += [
            (call, target, "call")
            for call, target, _ in analysis.call_conversions()
            if not gathered_later(analysis, call)
        ]
        findings = []
        for call, target, form in sites:
            accessor = analysis.enclosing_accessor(call)
            if accessor is None:
                continue
            if form in ("copy", "call"):
                cost = pool_cast_cost(ctx, target)
            else:
                cost = chain_cost(ctx, [t for _, t in analysis.cast_chain(call)])
            findings.append(
                self.finding(
                    ctx,
                    call,
                    f"`{short_code(analysis.code(call))}` converts the whole per-layer buffer to {target} inside the "
                    f"pool accessor `{accessor}`: every backend that reads the pool through it pays it on every "
                    f"layer ({cost.describe()}); return the stored buffer and convert only the rows a caller "
                    f"reads; {COST_HINT}",
                    Severity.ERROR if analysis.in_hot_path(call) else Severity.WARNING,
                    cost=cost,
                    unfixable_reason=ACCESSOR_CAST_REASON,
                )
            )
        return findings

    def row_reads(self, ctx: FileContext) -> List[Finding]:
        """Backend reads of an accessor that dequantizes a whole pool, by a kernel that reads rows."""
        from castlint.analysis.row_reads import CODEMOD, describe, row_reads

        findings = []
        for site in row_reads(ctx.analysis, ctx.path):
            accessor = site.accessor
            helper = ctx.tables.conversion_helpers.get(accessor["helper"])
            cost = helper_cost(ctx, helper, site.key_call) if helper is not None else None
            if cost is not None:  # the K and the V buffer
                cost = Cost(2 * cost.bytes_per_layer, 2 * cost.bytes_per_step, cost.model, cost.pool_tokens)
            fix = proven_fix(CODEMOD, describe(site), site) if site.refused is None else None
            findings.append(
                self.finding(
                    ctx,
                    site.key_call,
                    f"`{accessor['key']}`/`{accessor['value']}` dequantize the whole buffer on {accessor['pools']}, "
                    f"and `{site.row['function']}` reads only the rows `{site.row['rows'][0]}` lists"
                    + (f" ({cost.describe()})" if cost else "")
                    + f"; {COST_HINT}",
                    Severity.WARNING,
                    cost=cost,
                    fix=fix,
                    unfixable_reason=None if fix else f"the rows read cannot rewrite this call: {site.refused}",
                )
            )
        return findings


NO_FIX_REASON = "no automatic fix: convert only the selected pages, or store the cache in the kernel's format"
ROWS_GETTER_DESCRIPTION = (
    "add a rows getter beside the accessor (`get_key_buffer_rows(layer_id, rows)`: only the rows a kernel reads, "
    "each dequantized alone); the accessor is unchanged. Backends whose kernel reads the pool by a row-index "
    "tensor (rules/row_reads.toml [[row_kernel]]) then read only those rows (read_kv_rows)"
)
ROWS_GETTER_PRESENT = (
    "the rows getter beside this accessor is in place: backends whose kernel reads the pool by a row-index tensor "
    "read only those rows through it (read_kv_rows). Callers that index the buffer themselves (torch_native, "
    "flex attention), or read it by page table (trtllm_mha, FA4), still dequantize the whole buffer here: "
    "their kernels take no row-index tensor the read could be narrowed to"
)


def _rows_getter_fix(ctx: FileContext, call):
    """The rows getter for the accessor of this dequantize
    (castlint.checks.whole_pool_conversion_helper.rows_getter_proof)."""
    from castlint.checks.whole_pool_conversion_helper.rows_getter_proof import (
        CODEMOD,
        has_sibling,
        rows_getters,
        sibling_for,
    )

    getter, why_not = sibling_for(ctx.analysis, call)
    if getter is not None:
        return Fix(CODEMOD, FixSafety.SAFE, ROWS_GETTER_DESCRIPTION, site=rows_getters(ctx.analysis)[0]), None
    if has_sibling(ctx.analysis, call):
        return None, ROWS_GETTER_PRESENT
    return None, why_not


def helper_cost(ctx: FileContext, helper: ConversionHelper, call: cst.Call) -> Cost:
    """Bytes a whole-pool (de)quantization moves, in the pool's own format: the stored
    dtype (and its block scales) on one side, the other dtype on the other."""
    from castlint.analysis.tree import dotted

    model, sizes = ctx.cost_model, ctx.tables.dtype_bytes
    stored = helper.source_dtype or (model.kv_dtype if helper.direction == "dequantize" else model.compute_dtype)
    other = helper.target_dtype or (model.compute_dtype if helper.direction == "dequantize" else model.kv_dtype)
    for arg in call.args:  # `dtype=torch.float16` overrides the helper's default
        if arg.keyword is not None and arg.keyword.value == "dtype":
            written = (dotted(arg.value) or "").rsplit(".", 1)[-1]
            if written in sizes:
                other = written
    per_element = sizes[stored] + sizes[other]  # helper and model dtypes are checked at load
    if helper.scale_block:
        per_element += 1 / helper.scale_block
    per_layer = int(model.pool_tokens * model.row_elems * per_element)
    return Cost(per_layer, per_layer * model.layers, model.name, model.pool_tokens)


ACCESSOR_CAST_REASON = (
    "the accessor's callers decide which rows they read: return the stored buffer and let "
    "each caller gather its rows first, then cast (the CL003 pattern)"
)
