"""Round 25 (family_recall_23 / family_recall_22 leftovers): narrowing of dtype equality by conditions.

A cast of a whole pool where a condition has shown its dtype is already the target converts nothing:
the body of `if kv.dtype == d:` / `is`, the else of `!=` / `is not`, the code past an exiting
`if kv.dtype != d: return` (continue, break, raise; a disjunction's parts), a conjunction's parts, a
conditional expression's branches, a walrus `(k := ...).dtype != d` (k and the walrus's value), a
`.half()` under `dtype == torch.float16`, through a once-assigned local dtype and torch's alias names.
The positive branch keeps its finding. Each positive has look-alikes beside it; the pruned analysis
gives the whole file's findings, with and without filler."""

from __future__ import annotations

import pytest

from marked_cases import assert_marked_lines, assert_pruned_is_whole

CASES = {
    "eq_body_and_else_sglang": """\
import torch


class TritonAttnBackend:
    def __init__(self, model_runner):
        self.compute_dtype = model_runner.model_config.dtype
        self.warm = model_runner.token_to_kv_pool.get_key_buffer(0).to(torch.float32)  # negative: setup

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        pool = forward_batch.token_to_kv_pool
        key_buf = pool.get_key_buffer(layer.layer_id)
        if key_buf.dtype == self.compute_dtype:
            ready = key_buf.to(self.compute_dtype)  # negative: same dtype under the test
        else:
            ready = key_buf.to(self.compute_dtype)  # positive: CL001 the else converts
        if key_buf.dtype is not torch.bfloat16:
            wide = key_buf.to(torch.bfloat16)  # positive: CL001 differs here
        else:
            wide = key_buf.to(torch.bfloat16)  # negative: is bfloat16 already
        rows = key_buf[forward_batch.out_cache_loc].to(torch.float32)  # negative: rows gathered first
        moved = key_buf.to(q.device)  # negative: a device move
        return ready, wide, rows, moved
""",
    "early_exit_and_loop_continue_vllm": """\
import torch


class FlashAttentionImpl:
    def forward(self, layer, query, key, value, kv_cache, attn_metadata, output=None):
        key_cache = kv_cache[0]
        if key_cache.dtype != query.dtype:
            return key_cache.to(query.dtype)  # positive: CL001 the differing branch
        same = key_cache.to(query.dtype)  # negative: past the return, dtypes equal
        scale = layer._k_scale.to(query.dtype)  # negative: the scale tensor
        return same, scale

    def export(self, layers, kv_caches, dtype):
        out = []
        for i, layer in enumerate(layers):
            cache = kv_caches[i]
            if cache.dtype != dtype or layer.skip:
                continue
            out.append(cache.to(dtype))  # negative: past the continue, dtypes equal
        for i, layer in enumerate(layers):
            cache = kv_caches[i]
            if layer.skip:
                continue
            out.append(cache.to(dtype))  # positive: CL001 the test is not about the dtype
        return out
""",
    "walrus_and_conditional_lmdeploy": """\
import torch


class PagedAttentionImpl:
    def forward(self, query, key, value, past_key_value, attn_metadata, k_scales_zeros=None):
        k_cache, v_cache = past_key_value
        half = torch.half
        if (kc := k_cache).dtype != torch.float16:
            return kc.to(torch.float16)  # positive: CL001 the walrus tested it differs
        plain = k_cache.to(half)  # negative: past the return, float16 (alias, local name) already
        kept = v_cache if v_cache.dtype == query.dtype else v_cache.to(query.dtype)  # positive: CL001
        also = v_cache.to(query.dtype) if v_cache.dtype == query.dtype else v_cache  # negative: equal there
        zeros = k_scales_zeros.to(query.dtype)  # negative: scales and zeros
        return plain, kept, also, zeros
""",
    "conjunction_and_half_trtllm": """\
import torch


class TrtllmAttention:
    def __init__(self, kv_cache_manager, enable_debug=False):
        self.mgr = kv_cache_manager
        self.enable_debug = enable_debug

    def forward(self, q, metadata, layer_idx):
        buf = self.mgr.get_buffers(layer_idx)
        if self.enable_debug and buf.dtype == torch.float16:
            dbg = buf.half()  # negative: float16 under the conjunction
        if self.enable_debug or buf.dtype == torch.float16:
            dbg = buf.half()  # positive: CL001 a disjunction shows nothing
        if not buf.dtype != torch.float32:
            mirror = buf.float()  # negative: not-different is equal
        else:
            mirror = buf.float()  # positive: CL001 differs here
        buf = self.mgr.get_buffers(layer_idx + 1)
        if buf.dtype == torch.float16:
            buf = self.mgr.get_buffers(layer_idx + 2)
            other = buf.half()  # positive: CL001 another buffer than the tested one
        return dbg, mirror, other
""",
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_marked_lines(tmp_path, name):
    assert_marked_lines(tmp_path, name, CASES[name])


@pytest.mark.parametrize("name", sorted(CASES))
@pytest.mark.parametrize("filler", [False, True], ids=["as-is", "with-filler"])
def test_pruned_is_whole(tmp_path, name, filler):
    assert_pruned_is_whole(tmp_path, name, CASES[name], filler)
