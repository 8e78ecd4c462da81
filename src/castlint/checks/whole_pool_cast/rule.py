"""CL001 whole-pool-cast."""

from __future__ import annotations

from typing import TYPE_CHECKING, List

from castlint.checks.base import (
    COST_HINT,
    POOL_FLOW,
    FileContext,
    Rule,
    chain_cost,
    pool_cast_cost,
    proven_fix,
    short_code,
)
from castlint.mla_names import MLA_CODEMOD
from castlint.models import Finding, Fix, FixSafety, Severity

if TYPE_CHECKING:
    import libcst as cst


class WholePoolCast(Rule):
    code = "CL001"
    fix = "safe"
    scope = POOL_FLOW
    name = "whole-pool-cast"
    summary = "A dtype cast of a whole KV pool copies every slot, not just live tokens"
    what_it_does = (
        "Flags a dtype conversion (`.to(dtype)`, `.float()`, `.type(...)`, the unbound "
        "`torch.Tensor.to(pool, d)`, `buf.copy_(pool)` into a buffer allocated with its own "
        "dtype) of a whole preallocated KV pool or cache buffer: the accessor chain itself, "
        "a variable the pool reaches in statement order (slices and views such as "
        "`buf[:, :, :512]`, `.split()`/`.unbind()` parts, tuple unpacking, for loops and "
        "comprehensions over per-layer caches), a `self.` attribute assigned from one, a "
        "parameter fed with one (by `self.method(...)`, a nested function or lambda, or an "
        "engine's calling convention such as vLLM's `forward(..., kv_cache, attn_metadata)`), "
        "or what a helper in the file returns. A cast inside a pool accessor (`get_key_buffer`) "
        "is the accessor's conversion of the pool: CL004. A chain of casts is one "
        "finding. A cast of a gathered subset (`pool[indices]`, `index_select`), of an "
        "active prefix (`buf[:num_tokens]`: CL005, off by default), of batch-sized "
        "tensors, a device move and zero-copy reinterprets (`.view(dtype)`) are not flagged."
    )
    why_it_matters = (
        "The pool holds every slot ever allocated (495,552 tokens x 576 in the original "
        "report). Casting it FP8 -> BF16 reads and writes the whole arena on every layer "
        "of every decode step: 0.83 ms per layer on an H200 against 0.036 ms for the "
        "native FP8-KV FlashInfer MLA kernel, 66 ms against 3 ms per step on a 78-layer "
        "model."
    )
    example = (
        "k_buffer = self.token_to_kv_pool.get_key_buffer(layer.layer_id).to(q.dtype)\n"
        "o = decode_wrapper.run(q_nope, q_rope, k_buffer[:, :, :512], k_buffer[:, :, 512:])"
    )
    fix_safety = (
        "In sglang's FlashInfer MLA backend the fix (`castlint fix`) plans with the KV "
        "cache dtype, drops the cast and passes ckv/kpe scales, behind a guard decided "
        "once at init; elsewhere the old cast path runs unchanged. The rewrite is safe: "
        "the native path is taken only where FlashInfer has the kernel. Other sites have "
        "no known mixed-precision consumer; the finding says what to do instead."
    )
    VALID = (
        # a gather first: batch-sized
        "def forward_decode(self, q, layer, idx):\n    k = self.pool.get_key_buffer(layer.layer_id)[idx].to(q.dtype)\n",
        # zero-copy reinterpret
        "def forward(self, layer):\n    return self.pool.get_key_buffer(layer.layer_id).view(torch.uint8)\n",
        # batch tensors fed to a ragged wrapper
        "def forward_extend(self, q, k, v, layer):\n"
        "    return self.ragged.forward(q, k.view(-1, 1, 192).to(q.dtype), v.to(q.dtype))\n",
        # device move only
        "def forward(self, layer):\n    return self.pool.get_key_buffer(layer.layer_id).to(self.device)\n",
        # guarded fallback emitted by castlint fix
        "def forward_decode(self, q, layer):\n"
        "    k = self.pool.get_key_buffer(layer.layer_id)\n"
        "    if not self.castlint_native_fp8_kv:\n"
        "        k = k.to(q.dtype)\n",
        # followed in statement order: the gather replaced the pool
        "def forward_decode(self, q, layer, loc):\n"
        "    kv = self.pool.get_key_buffer(layer.layer_id)\n"
        "    kv = kv[loc]\n"
        "    return kv.to(q.dtype)\n",
        # a device held in a name is a move, not a cast
        "def offload(self, layer):\n"
        "    dev = torch.device('cuda', 1)\n"
        "    return self.pool.get_key_buffer(layer.layer_id).to(dev)\n",
        # an active prefix converts the live tokens (CL005, off by default)
        "def forward_extend(self, q, layer, num_tokens):\n"
        "    return self.pool.get_key_buffer(layer.layer_id)[:num_tokens].to(q.dtype)\n",
        # a CUDA-graph staging buffer, allocated by the batch size, named like a cache
        "class Graph:\n"
        "    def __init__(self, max_bs):\n"
        "        self.kv_buffer = torch.zeros((max_bs, 576), dtype=torch.bfloat16)\n"
        "    def replay(self, bs):\n"
        "        return self.kv_buffer[:bs].float()\n",
    )
    INVALID = (
        ("def forward_decode(self, q, layer):\n    k = self.pool.get_key_buffer(layer.layer_id).to(q.dtype)\n", (2,)),
        (
            "def forward(self, layer):\n"
            "    buf = self.pool.get_key_buffer(layer.layer_id)\n"
            "    nope = buf[:, :, :512]\n"
            "    return nope.float()\n",
            (4,),
        ),
        (
            "class B:\n"
            "    def __init__(self, pool):\n"
            "        self.cache = pool.get_value_buffer(0)\n"
            "    def forward(self):\n"
            "        return self.cache.to(dtype=torch.bfloat16)\n",
            (5,),
        ),
        (
            "def f(pool, layer_id):\n"
            "    k, v = pool.get_kv_buffer(layer_id)\n"
            "    return k.half(), v.type(torch.float32)\n",
            (3, 3),
        ),
        # a chain of casts is one finding
        (
            "def forward(self, q, layer):\n"
            "    return self.pool.get_key_buffer(layer.layer_id).to(torch.float32).to(q.dtype)\n",
            (2,),
        ),
        # vLLM's calling convention: kv_cache is the layer's whole cache (rules/conventions.toml)
        (
            "class Impl:\n"
            "    def forward(self, layer, query, key, value, kv_cache, attn_metadata, output):\n"
            "        key_cache, value_cache = kv_cache.unbind(1)\n"
            "        return key_cache.to(query.dtype)\n",
            (4,),
        ),
        # a comprehension over the per-layer caches
        ("def upcast_all(self):\n    return [c.to(torch.float32) for c in self.kv_caches]\n", (2,)),
    )

    def triggers(self, words) -> tuple:
        return words.pool_conversions

    def check(self, ctx: FileContext) -> List[Finding]:
        from castlint.analysis.gathers import cast_before_gather, gathered_later

        analysis = ctx.analysis
        findings = []
        for call, target in analysis.pool_casts():
            if cast_before_gather(analysis, call):
                continue  # a cast before a gather: CL003
            if analysis.enclosing_accessor(call) is not None:
                continue  # the pool accessor converts the pool: CL004
            chain = analysis.cast_chain(call)
            cost = chain_cost(ctx, [t for _, t in chain])
            source = analysis.code(chain[0][0].func.value)
            fix, why_not = _mla_fix(ctx, call)
            findings.append(
                self.finding(
                    ctx,
                    call,
                    f"whole-pool cast {_targets(chain)} of `{short_code(source)}`{_in_accessor(analysis, call)} moves "
                    f"{cost.describe()}; {COST_HINT}",
                    _severity(analysis, call),
                    cost=cost,
                    fix=fix,
                    unfixable_reason=why_not,
                )
            )
        for call, target, form in analysis.pool_conversions():
            if analysis.enclosing_accessor(call) is not None:
                continue  # CL004
            cost = pool_cast_cost(ctx, target)
            if form == "copy":
                what = (
                    f"`{short_code(analysis.code(call))}` converts the whole pool to {target} (a copy into a "
                    f"buffer allocated in that dtype)"
                )
            else:
                chain = analysis.cast_chain(call)
                cost = chain_cost(ctx, [t for _, t in chain])
                receiver = short_code(analysis.code(_receiver(analysis, chain[0][0])))
                what = f"whole-pool cast {_targets(chain)} of `{receiver}`"
            findings.append(
                self.finding(
                    ctx,
                    call,
                    f"{what}{_in_accessor(analysis, call)} moves {cost.describe()}; {COST_HINT}",
                    _severity(analysis, call),
                    cost=cost,
                    unfixable_reason=NO_CONSUMER_REASON,
                )
            )
        for call, target, through in analysis.call_conversions():
            if gathered_later(analysis, call):
                continue  # gathered after the conversion: CL003
            if analysis.enclosing_accessor(call) is not None:
                continue  # an accessor that converts through a helper: CL004
            cost = pool_cast_cost(ctx, target)
            findings.append(
                self.finding(
                    ctx,
                    call,
                    f"`{short_code(analysis.code(call))}` converts a whole pool to {target} through `{through}` "
                    f"and moves {cost.describe()}; {COST_HINT}",
                    _severity(analysis, call),
                    cost=cost,
                    unfixable_reason="the conversion happens in the callee: gather the live pages before the call",
                )
            )
        return findings


def _severity(analysis, call: cst.Call) -> Severity:
    return Severity.ERROR if analysis.in_hot_path(call) else Severity.WARNING


def _receiver(analysis, call: cst.Call) -> cst.BaseExpression:
    receiver, _, _ = analysis.method_parts(call)
    return receiver if receiver is not None else call


def _targets(chain) -> str:
    if len(chain) == 1:
        return f"to {chain[0][1]}"
    return "chain to " + ", then ".join(target for _, target in chain)


def _in_accessor(analysis, call: cst.Call) -> str:
    accessor = analysis.enclosing_accessor(call)
    if accessor is None:
        return ""
    return f" inside the pool accessor `{accessor}` (every backend that reads the pool through it pays it)"


NO_CONSUMER_REASON = (
    "no mixed-precision consumer is known for this buffer, and no paged kernel of "
    "rules/paged_kernels.toml reads it. Gather the live pages first and cast those "
    "(the CL003 pattern), or use a kernel that reads FP8 KV; if the cast is intended, "
    "add `# castlint: ignore[CL001]`."
)


def _mla_fix(ctx: FileContext, call: cst.Call):
    """The MLA fix for this cast, if the codemod can rewrite it (else None and why not).

    `[*]` is shown only when the codemod's own site check accepts the cast and its
    file's plans (castlint.analysis.mla_sites), so a marked finding is one `castlint
    fix` applies."""
    from castlint.analysis.mla_sites import mla_fix_site

    unseen = ctx.analysis.unseen_on_the_way(call.func.value)
    if unseen:  # the native read (or a paged kernel) would get what that decorator returns
        return None, (
            f"the pool comes back through `@{unseen[0]}`, a decorator castlint cannot see: what it "
            "returns is not proven to be the pool itself; if it is, add it to rules/accessors.toml "
            "[callables] pass_through_decorators"
        )
    site, why_not = mla_fix_site(ctx, call)
    if site is not None:  # the proven cast site is what the codemod rewrites
        return Fix(MLA_CODEMOD, FixSafety.SAFE, MLA_FIX_DESCRIPTION, site=site), None
    if why_not:
        return None, why_not
    return _paged_fix(ctx, call)


def _paged_fix(ctx: FileContext, call: cst.Call):
    """The paged-read fix (castlint.analysis.paged_reads) when a paged kernel reads the cast."""
    from castlint.analysis.paged_reads import CODEMOD, describe, why_not_paged

    site, why_not = why_not_paged(ctx.analysis, call)
    if site is None:
        return None, why_not or NO_CONSUMER_REASON
    return proven_fix(CODEMOD, describe(site), site), None


MLA_FIX_DESCRIPTION = (
    "each plan() picks on the host how run() reads the FP8 pool (native FP8-KV kernel, only the rows it "
    "reads, or the original cast) from a measured cost model; forward follows the plan"
)
