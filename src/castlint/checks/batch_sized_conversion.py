"""CL005 batch-sized-conversion (off by default: select it with `--select CL005`)."""

from __future__ import annotations

from typing import List

from castlint.checks.base import POOL_FLOW, FileContext, Rule, short_code
from castlint.models import Finding, Severity


class BatchSizedConversion(Rule):
    code = "CL005"
    opt_in = True
    scope = POOL_FLOW
    name = "batch-sized-conversion"
    summary = "A dtype cast of an active prefix of a KV pool: its size follows the batch, not the pool"
    what_it_does = (
        "Flags a dtype conversion of an active-prefix slice of a whole pool: "
        "`buf[:num_tokens].to(d)`, `buf[a:b].float()`, `buf.narrow(0, 0, n_used).to(d)` (a "
        "bound on the token dimension that is not the pool's own extent). These convert "
        "the live tokens only, so they are not CL001. The rule is off by default; select "
        "it (`--select CL005`, or `select`/`extend-select` in the configuration) to review "
        "per-step conversions whose size follows the batch."
    )
    why_it_matters = (
        "A prefix conversion costs bytes in proportion to the tokens in flight, not to the "
        "pool: usually fine. On long prefills run on every layer it can still be worth "
        "reading the stored dtype directly, and a prefix bound that is in fact the pool's "
        "extent (under another name) would be a whole-pool cast in disguise."
    )
    example = "k = self.token_to_kv_pool.get_key_buffer(layer.layer_id)[:num_tokens].to(q.dtype)"
    fix_safety = "No automatic fix: decide whether the consumer can read the stored dtype."
    VALID = (
        # the whole pool: CL001, not CL005
        "def forward(self, q, layer):\n    return self.pool.get_key_buffer(layer.layer_id).to(q.dtype)\n",
        # the pool's own extent is no prefix
        "def forward(self, q, layer):\n    return self.pool.get_key_buffer(layer.layer_id)[: self.size].to(q.dtype)\n",
        # a gather
        "def forward(self, q, layer, loc):\n    return self.pool.get_key_buffer(layer.layer_id)[loc].to(q.dtype)\n",
    )
    INVALID = (
        (
            "def forward(self, q, layer, forward_batch):\n"
            "    n = forward_batch.num_tokens\n"
            "    return self.pool.get_key_buffer(layer.layer_id)[:n].to(q.dtype)\n",
            (3,),
        ),
        (
            "def forward(self, q, layer, n_used):\n"
            "    k = self.pool.get_key_buffer(layer.layer_id).narrow(0, 0, n_used)\n"
            "    return k.float()\n",
            (3,),
        ),
        (
            "def forward_extend(self, q, layer, forward_batch):\n"
            "    k, v = self.pool.get_kv_buffer(layer.layer_id)\n"
            "    return v[forward_batch.start : forward_batch.end].half()\n",
            (3,),
        ),
    )

    def triggers(self, words) -> tuple:
        return words.pool_conversions

    def check(self, ctx: FileContext) -> List[Finding]:
        analysis = ctx.analysis
        findings = []
        for call, target in prefix_casts(analysis):
            receiver = analysis.method_parts(call)[0]
            findings.append(
                self.finding(
                    ctx,
                    call,
                    f"cast to {target} of an active prefix `{short_code(analysis.code(receiver))}` of a pool: "
                    "it converts "
                    f"the tokens in flight, not the pool (batch-sized; not CL001)",
                    Severity.WARNING,
                    unfixable_reason="a batch-sized conversion: keep it, or read the stored dtype directly "
                    "where the consumer can",
                )
            )
        return findings


def prefix_casts(analysis) -> List[tuple]:
    """(call, target) for the casts of an active prefix of a pool (`buf[:num_tokens].to(d)`)."""
    import libcst as cst

    from castlint.analysis import Origin

    return [
        (call, target)
        for call in analysis.nodes.calls
        if isinstance(call.func, cst.Attribute)
        and (target := analysis.cast_target(call)) is not None
        and (receiver := analysis.cast_receiver(call)) is not None
        and analysis.origin(receiver) == Origin.PREFIX
        and not analysis.chained_into_cast(call)
        and not analysis.guarded_fallback(call)
    ]
