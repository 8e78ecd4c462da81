"""Round 23 (family_recall_21, f4 CL001): vLLM MLA impls whose `forward_decode` / `forward_prefill` (no
leading underscore, as out-of-tree and older backends name them) take the whole latent cache
`kv_c_and_k_pe_cache` (rules/conventions.toml), handed through a helper's returned tuple together with the
target dtype: by position, in either order, in a 3-tuple, through a method. Look-alikes: blocks gathered
first, the query, a `.to(device)`, a same-dtype cast. Pruned analysis == whole, with and without filler."""

from __future__ import annotations

import pytest

from marked_cases import assert_marked_lines, assert_pruned_is_whole

CASES = {
    "dtype_first_pair_vllm": """\
import torch


def _target_and_cache(kv_cache_dtype, model_dtype, cache):
    if kv_cache_dtype == "fp8_e4m3":
        return model_dtype, cache
    return cache.dtype, cache


class CutlassMLAFallbackImpl:
    def __init__(self, kv_cache_dtype, model_dtype):
        self.kv_cache_dtype = kv_cache_dtype
        self.model_dtype = model_dtype

    def forward_decode(self, q, kv_c_and_k_pe_cache, attn_metadata, layer):
        dt, latent = _target_and_cache(self.kv_cache_dtype, self.model_dtype, kv_c_and_k_pe_cache)
        wide = latent.to(dt)  # positive: CL001
        picked = latent[attn_metadata.decode.block_table].to(dt)  # negative: blocks first
        moved = latent.to(q.device)  # negative: device move
        return wide, picked, moved
""",
    "three_tuple_method_vllm": """\
import torch


class FlashMLAPrefillImpl:
    def __init__(self, model_dtype, kv_lora_rank):
        self.model_dtype = model_dtype
        self.kv_lora_rank = kv_lora_rank

    def _unpack(self, kv_c_and_k_pe_cache):
        return kv_c_and_k_pe_cache, self.kv_lora_rank, self.model_dtype

    def forward_prefill(self, q, kv_c_and_k_pe_cache, attn_metadata, layer):
        cache, rank, dtype = self._unpack(kv_c_and_k_pe_cache)
        dense = cache.to(dtype)  # positive: CL001
        q_t = q.to(dtype)  # negative: the query
        return dense, q_t, rank
""",
    "pair_then_plane_vllm": """\
import torch


def _split_for_decode(cache, kv_lora_rank, dtype):
    return (cache, dtype) if kv_lora_rank else (cache[:0], dtype)


class TritonMLADecodeImpl:
    def __init__(self, kv_lora_rank):
        self.kv_lora_rank = kv_lora_rank

    def forward_decode(self, q, kv_c_and_k_pe_cache, attn_metadata, layer):
        same = kv_c_and_k_pe_cache.to(kv_c_and_k_pe_cache.dtype)  # negative: same dtype
        cache, dtype = _split_for_decode(kv_c_and_k_pe_cache, self.kv_lora_rank, torch.bfloat16)
        latent = cache[..., : self.kv_lora_rank].to(dtype)  # positive: CL001
        return same, latent
""",
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_marked_lines(tmp_path, name):
    assert_marked_lines(tmp_path, name, CASES[name])


@pytest.mark.parametrize("name", sorted(CASES))
@pytest.mark.parametrize("filler", [False, True], ids=["as-is", "with-filler"])
def test_pruned_is_whole(tmp_path, name, filler):
    assert_pruned_is_whole(tmp_path, name, CASES[name], filler)
