"""Round 32 (family_recall_29, helper F): whole-keeping ops and the CUDA-graph buffer protocol:
- a dim-taking selection (`index_select`) along a later dimension than the blocks (`torch.index_select(kc, -1,
  perm)`, `kc.index_select(dim=2, index=order)`) is the subscript `kc[..., perm]`: every slot, converted whole;
  along dimension 0 it takes the blocks listed (a gather);
- `torch.as_strided` as a function, the tensor first: with the tensor's own size (`kc.size()`, `tuple(kc.shape)`)
  every slot, any other size some of them;
- lmdeploy's CUDA-graph buffer protocol: fill_buffers_cudagraph(graph_meta, buffers, ..., past_key_values,
  attn_metadata, ...) refills the static buffers before every replay with each layer's caches (also read as
  `kwargs["past_key_values"]` beside a make_buffers_cudagraph reading the same keyword), while
  make_buffers_cudagraph allocates them once.
Each positive has look-alikes beside it; the pruned analysis gives the whole file's findings."""

# ruff: noqa: E501
from __future__ import annotations

import pytest

from marked_cases import assert_marked_lines, assert_pruned_is_whole

CASES = {
    # -- index_select along a later dimension ------------------------------------------------------------
    "index_select_head_dim_function_vllm": """\
import torch


class HeadPermuteImpl:
    def forward(self, layer, query, key, value, kv_c_and_k_pe_cache, attn_metadata, output=None):
        order = attn_metadata.rope_order
        dense = torch.index_select(kv_c_and_k_pe_cache, 2, order).to(query.dtype)  # positive: CL001 a feature permutation of every block
        rows = torch.index_select(kv_c_and_k_pe_cache, 0, attn_metadata.block_table[0]).to(query.dtype)  # negative: blocks gathered first
        s = layer._k_scale.to(torch.float32)  # negative: a scale
        return dense, rows, s
""",
    "index_select_last_dim_method_lmdeploy": """\
import torch


class LatentRopeSplit:
    def __init__(self, dtype=torch.float16):
        self.dtype = dtype

    def forward(self, query, k_cache, v_cache, attn_metadata):
        cols = attn_metadata.latent_cols
        latent = k_cache.index_select(-1, cols).half()  # positive: CL001 some features of every block
        picked = k_cache.index_select(0, attn_metadata.block_offsets.flatten()).half()  # negative: blocks first
        q = query.index_select(-1, cols).to(self.dtype)  # negative: the query
        return latent, picked, q
""",
    "index_select_dim_keyword_sglang": """\
import torch


class ShuffledDecodeBackend:
    def __init__(self, model_runner):
        self.pool = model_runner.token_to_kv_pool

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        buf = self.pool.get_key_buffer(layer.layer_id)
        perm = self.head_perm.to(buf.device)  # negative: an index moved to the device
        whole = buf.index_select(dim=1, index=perm).to(q.dtype)  # positive: CL001 every token, heads reordered
        locs = forward_batch.out_cache_loc
        live = buf.index_select(0, locs).to(q.dtype)  # negative: the batch's tokens gathered
        return whole, live
""",
    # -- torch.as_strided with the tensor's own geometry -------------------------------------------------
    "as_strided_function_own_size_trtllm": """\
import torch


class StridedDraftAttention:
    def forward(self, q, k, v, attn_metadata):
        mgr = attn_metadata.kv_cache_manager
        buf = mgr.get_buffers(self.layer_idx)
        same = torch.as_strided(buf, buf.size(), buf.stride()).to(q.dtype)  # positive: CL001 the whole layer buffer
        as_tuple = torch.as_strided(buf, tuple(buf.shape), buf.stride()).float()  # positive: CL001 the same, shape spelled as a tuple
        head = torch.as_strided(buf, (attn_metadata.num_blocks, *buf.shape[1:]), buf.stride()).to(q.dtype)  # negative: the first blocks
        return same, as_tuple, head
""",
    "as_strided_function_named_view_vllm": """\
import torch


class StridedMLAImpl:
    def forward_mqa(self, q, kv_c_and_k_pe_cache, attn_metadata, layer):
        cache = kv_c_and_k_pe_cache
        view = torch.as_strided(cache, cache.size(), cache.stride(), cache.storage_offset())
        dense = view.to(q.dtype)  # positive: CL001 every block, through the identity view
        n = attn_metadata.num_decode_blocks
        part = torch.as_strided(cache, (n, cache.shape[1], cache.shape[2]), cache.stride()).to(q.dtype)  # negative: n blocks
        return dense, part
""",
    # -- lmdeploy's CUDA-graph buffer protocol -----------------------------------------------------------
    "fill_buffers_signature_lmdeploy": """\
import torch


class WidenGraphBuffers:
    def make_buffers_cudagraph(self, graph_meta, **kwargs):
        caches = kwargs["past_key_values"]
        return {"dense": [torch.empty_like(k, dtype=torch.bfloat16) for k, _ in caches]}  # negative: allocation once

    def fill_buffers_cudagraph(self, graph_meta, input_ids, position_ids, past_key_values, attn_metadata, inputs_embeds, **kwargs):
        buffers = graph_meta.input_buffers
        for dense, (k_cache, v_cache) in zip(buffers["dense"], past_key_values):
            dense.copy_(k_cache.type_as(dense))  # positive: CL001 every layer's whole key cache, every replay
        buffers["q_seqlens"].copy_(attn_metadata.q_seqlens.to(torch.int32))  # negative: lengths
        first = past_key_values[0][0][attn_metadata.block_offsets[0]].to(torch.bfloat16)  # negative: one sequence's blocks
        return buffers, first
""",
    "fill_buffers_kwargs_beside_make_lmdeploy": """\
import torch


class _NPUGraphBackend:
    @staticmethod
    def make_buffers_cudagraph(graph_meta, *args, **kwargs):
        return {"kv": [torch.empty_like(k, dtype=torch.float16) for k, _ in kwargs["past_key_values"]]}  # negative: allocation

    @staticmethod
    def fill_buffers_cudagraph(graph_meta, buffers, *args, **kwargs):
        for i, (k, v) in enumerate(kwargs["past_key_values"]):
            buffers["kv"][i].copy_(k.to(torch.float16))  # positive: CL001 each layer's whole key cache per replay
        buffers["seq"].copy_(kwargs["attn_metadata"].kv_seqlens.to(torch.int32))  # negative: lengths
        return buffers


class _HelperOnly:
    @staticmethod
    def fill_buffers_cudagraph(graph_meta, buffers, *args, **kwargs):
        for i, (k, v) in enumerate(kwargs["past_key_values"]):
            buffers["kv"][i].copy_(k.to(torch.float16))  # negative: no evidence these are the model's caches
        return buffers
""",
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_marked_lines(tmp_path, name):
    assert_marked_lines(tmp_path, name, CASES[name])


@pytest.mark.parametrize("name", sorted(CASES))
@pytest.mark.parametrize("filler", [False, True])
def test_pruned_is_whole(tmp_path, name, filler):
    assert_pruned_is_whole(tmp_path, name, CASES[name], filler)
