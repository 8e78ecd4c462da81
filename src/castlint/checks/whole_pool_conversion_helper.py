"""CL004 whole-pool-conversion-helper."""
from __future__ import annotations

from typing import List

import libcst as cst

from castlint.analysis import Origin
from castlint.checks.base import COST_HINT, FileContext, Rule, pool_cast_cost
from castlint.models import Finding, Severity


class WholePoolConversionHelper(Rule):
    code = "CL004"
    name = "whole-pool-conversion-helper"
    summary = "A helper quantizes or dequantizes an entire KV pool"
    what_it_does = (
        "Flags calls to the helpers listed as `conversion_helper` in rules/*.toml "
        "(e.g. sglang's `quantize_k_cache`) when the converted argument is a whole pool, "
        "followed through variables, views and method parameters. Calls on batch-sized "
        "tensors (the tokens being written) are not flagged. Add your own helpers to a "
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
        "No automatic fix: store the cache in the kernel's format, or convert only the "
        "pages selected by the page table."
    )
    VALID = (
        "def set_kv(self, layer, k):\n"
        "    k = quantize_k_cache(k.unsqueeze(1))\n",
    )
    INVALID = (
        ("def forward_decode(self, layer):\n"
         "    kv_cache = self.pool.get_key_buffer(layer.layer_id)\n"
         "    kv_cache = kv_cache.view(-1, 64, 1, 656)\n"
         "    return quantize_k_cache(kv_cache)\n", (4,)),
        ("class B:\n"
         "    def forward(self, layer):\n"
         "        kv = self.pool.get_key_buffer(layer.layer_id)\n"
         "        return self._decode(kv)\n"
         "    def _decode(self, kv_cache):\n"
         "        return flashmla.dequantize_k_cache(kv_cache)\n", (6,)),
    )

    def check(self, ctx: FileContext) -> List[Finding]:
        a, helpers = ctx.analysis, ctx.tables.conversion_helpers
        findings = []
        for call in a.nodes.calls:
            func = call.func
            name = func.value if isinstance(func, cst.Name) else func.attr.value if isinstance(func, cst.Attribute) else None
            helper = helpers.get(name)
            if helper is None:
                continue
            positional = [arg.value for arg in call.args if arg.keyword is None and not arg.star]
            if helper.arg >= len(positional) or a.origin(positional[helper.arg]) < Origin.POOL_TUPLE:
                continue
            cost = pool_cast_cost(ctx, None)
            findings.append(self.finding(
                ctx, call,
                f"`{name}` {helper.direction}s a whole pool ({cost.describe()}); "
                f"convert only the pages the kernel reads; {COST_HINT}",
                Severity.ERROR if a.in_hot_path(call) else Severity.WARNING,
                cost=cost,
                unfixable_reason="no automatic fix: convert only the selected pages, or store the cache in the kernel's format",
            ))
        return findings
