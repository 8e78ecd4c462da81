"""Round 29 (family_recall_27), in sglang, vLLM, lmdeploy and TRT-LLM styles other than the corpus's:
- getters of the engine's pool object known by their shape ([learn] pool_receivers, buffer_getters,
  not_buffer_words): `self.kv_pool.get_nope_buffer(layer.layer_id)` of `self.kv_pool =
  model_runner.token_to_kv_pool` is one layer's buffer, joined whole by any join (`torch.hstack`,
  `torch.concat(..., axis=-1)`); a scale getter, a getter unpacked into several values, rows are not;
- one piece of a split read through the name that holds the split (`parts = torch.vsplit(buf, b)`;
  `parts[r]`), by a scalar index too: along the blocks or slots one piece is some of them, along a later
  dimension a plane of every slot; `vsplit`/`hsplit`/`dsplit` split along their own dimension and `axis=`
  spells `dim=` ([dim_arguments], [views] dim_keyword_aliases); the pieces joined again are the whole;
- branches guarded by an isinstance test against a class of non-attention state ([guards] state_classes:
  vLLM's MambaSpec, sglang's MambaPool, ...) read a model's state, not KV; the other branch still converts;
- a hook that a base class of a sibling module calls from its per-step method with the cache
  (`self._prepare(kv_cache, attn_metadata)` in `forward`) and that the subclass overrides converting it: the
  override's parameters take the base call site's arguments (tree_index.with_overridden_bases).
Each positive has look-alikes beside it; the pruned analysis gives the whole file's findings."""

from __future__ import annotations

import pytest

from marked_cases import assert_marked_lines, assert_pruned_is_whole
from package_cases import fresh_tree_caches, marked_lines, tree_findings, write_tree

CASES = {
    "shaped_getters_hstack_sglang": """\
import torch


class PluginMLABackend:
    def __init__(self, model_runner):
        self.kv_pool = model_runner.token_to_kv_pool
        self.rank = model_runner.model_config.kv_lora_rank

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        nope = self.kv_pool.get_nope_buffer(layer.layer_id)
        pe = self.kv_pool.get_pe_buffer(layer.layer_id)
        packed = torch.hstack((nope, pe)).float()  # positive: CL001 every slot of both buffers
        loc = forward_batch.out_cache_loc
        rows = torch.hstack((nope[loc], pe[loc])).float()  # negative: the batch's rows
        scale = self.kv_pool.get_k_scale_buffer(layer.layer_id).float()  # negative: a scale getter
        moved = nope.to(q.device)  # negative: a device move
        return packed, rows, scale, moved
""",
    "shaped_getter_concat_axis_sglang": """\
import torch


class ExternalPoolDecode:
    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        pool = forward_batch.token_to_kv_pool
        latent = forward_batch.token_to_kv_pool.get_compressed_buffer(layer.layer_id)
        joined = torch.concat([latent, latent], axis=-1).to(q.dtype)  # positive: CL001 every slot
        a, b = pool.get_split_pair_buffer(layer.layer_id)
        pair = a.to(q.dtype)  # negative: a getter unpacked into several values is no one buffer
        same = latent.to(latent.dtype)  # negative: its own dtype
        return joined, pair, b, same
""",
    "vsplit_pieces_unbind_axis_trtllm": """\
import torch


class DraftVerifyCheck:
    def __init__(self, layer_idx, dtype):
        self.layer_idx = layer_idx
        self.dtype = dtype

    def forward(self, q, attn_metadata, spec_metadata):
        buf = attn_metadata.kv_cache_manager.get_buffers(self.layer_idx)
        planes = buf.unbind(axis=1)
        k_all = planes[0].to(self.dtype)  # positive: CL001 the K plane of every block
        blocks = torch.vsplit(buf, spec_metadata.block_offsets)
        outs = []
        for j in range(spec_metadata.num_requests):
            outs.append(blocks[j].to(self.dtype))  # negative: one request's blocks
        head = blocks[0].to(self.dtype)  # negative: the first request's blocks
        one = torch.vsplit(buf, 1)[0].to(self.dtype)  # positive: CL001 one section is every block
        return k_all, outs, head, one
""",
    "chunk_pieces_by_counter_sglang": """\
import torch


class ChunkedDumpBackend:
    def __init__(self, model_runner):
        self.pool = model_runner.token_to_kv_pool

    def forward_extend(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        buf = self.pool.get_key_buffer(layer.layer_id)
        chunks = buf.chunk(forward_batch.num_chunks)
        out = [chunks[c].float() for c in range(forward_batch.num_chunks)]  # negative: some slots each
        heads = torch.tensor_split(buf, 4, dim=1)
        first = heads[0].float()  # positive: CL001 a quarter of the heads of every slot
        again = torch.cat(chunks).float()  # positive: CL001 the chunks joined again
        return out, first, again
""",
    "unbind_blocks_lmdeploy": """\
import torch


class BlockwiseCopyKernel:
    def __init__(self, dtype):
        self.dtype = dtype

    def forward(self, query, key, value, k_cache, v_cache, attn_metadata, k_scales_zeros=None,
                v_scales_zeros=None, learnable_sink=None, nsa_indices=None, inplace=True):
        blocks = k_cache.unbind(axis=0)
        picked = [blocks[b].to(self.dtype) for b in range(len(attn_metadata.block_offsets))]  # negative: blocks
        dense = torch.stack(blocks).to(self.dtype)  # positive: CL001 every block stacked again
        return picked, dense, v_cache
""",
    "mamba_spec_elif_vllm": """\
import torch
from vllm.v1.kv_cache_interface import MambaSpec


class HybridStateDump:
    def __init__(self, vllm_config, dtype):
        self.ctx = vllm_config.compilation_config.static_forward_context
        self.dtype = dtype

    def execute_model(self, scheduler_output, kv_cache_config):
        out = {}
        for group in kv_cache_config.kv_cache_groups:
            spec = group.kv_cache_spec
            for name in group.layer_names:
                cache = self.ctx[name].kv_cache[0]
                if isinstance(spec, MambaSpec) and spec.num_speculative_blocks == 0:
                    out[name] = cache[0].to(self.dtype)  # negative: the mamba conv state
                elif not isinstance(spec, MambaSpec):
                    out[name] = cache.to(self.dtype)  # positive: CL001 a whole attention layer
        return out
""",
    "mamba_pool_not_isinstance_sglang": """\
import torch


class HybridBackendProbe:
    def __init__(self, model_runner):
        self.pool = model_runner.token_to_kv_pool
        self.req_pool = model_runner.req_to_token_pool

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        if not isinstance(self.req_pool, (MambaPool, ShortConvPool)):
            return self.pool.get_key_buffer(layer.layer_id).float()  # positive: CL001 attention keys
        else:
            state = self.pool.get_key_buffer(layer.layer_id)
            return state.float()  # negative: the pool holds the conv state here
""",
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_marked_lines(tmp_path, name):
    assert_marked_lines(tmp_path, name, CASES[name])


@pytest.mark.parametrize("name", sorted(CASES))
@pytest.mark.parametrize("filler", [False, True], ids=["as-is", "with-filler"])
def test_pruned_is_whole(tmp_path, name, filler):
    assert_pruned_is_whole(tmp_path, name, CASES[name], filler)


PACKAGES = {
    "hook_override_vllm": {
        "impls/__init__.py": "",
        "impls/common.py": """
            import torch


            class PagedImplBase:
                def __init__(self, num_heads, head_size, scale, num_kv_heads, kv_cache_dtype, **kwargs):
                    self.kv_cache_dtype = kv_cache_dtype

                def _prepare(self, kv_cache, attn_metadata):
                    return kv_cache

                def _prepare_query(self, query):
                    return query

                def forward(self, layer, query, key, value, kv_cache, attn_metadata, output=None):
                    cache = self._prepare(kv_cache, attn_metadata)
                    q = self._prepare_query(query)
                    return self._run(q, cache, attn_metadata, output)
        """,
        "impls/legacy.py": """
            import torch

            from .common import PagedImplBase as Base


            class LegacyGpuImpl(Base):
                def _prepare(self, kv_cache, attn_metadata):
                    return kv_cache.to(torch.float16)  # positive: CL001 the whole layer, every step

                def _prepare_query(self, query):
                    return query.to(torch.float16)  # negative: the query

                def debug_dump(self, kv_cache):
                    return kv_cache.float()  # negative: no per-step method hands it a cache
        """,
    },
    "hook_override_sglang": {
        "backends/__init__.py": "",
        "backends/base.py": """
            class PoolReadingBackend:
                def __init__(self, model_runner):
                    self.dtype = model_runner.dtype

                def _read(self, buf):
                    return buf

                def _rows(self, rows):
                    return rows

                def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
                    pool = forward_batch.token_to_kv_pool
                    whole = self._read(pool.get_key_buffer(layer.layer_id))
                    rows = self._rows(pool.get_key_buffer(layer.layer_id)[forward_batch.out_cache_loc])
                    return whole, rows
        """,
        "backends/npu_widen.py": """
            import torch

            from .base import PoolReadingBackend


            class NpuWidenBackend(PoolReadingBackend):
                def _read(self, buf):
                    return buf.to(torch.bfloat16)  # positive: CL001 every slot of the layer

                def _rows(self, rows):
                    return rows.to(torch.bfloat16)  # negative: the batch's rows
        """,
    },
    "hook_override_lmdeploy": {
        "attn/__init__.py": "",
        "attn/impl_base.py": """
            class TritonAttentionBase:
                def _caches(self, k_cache, v_cache):
                    return k_cache, v_cache

                def forward(self, query, key, value, k_cache, v_cache, attn_metadata, k_scales_zeros=None,
                            v_scales_zeros=None, learnable_sink=None, nsa_indices=None, inplace=True):
                    k, v = self._caches(k_cache, v_cache)
                    return self._attend(query, k, v, attn_metadata)
        """,
        "attn/camb.py": """
            from .impl_base import TritonAttentionBase


            class CambAttention(TritonAttentionBase):
                def _caches(self, k_cache, v_cache):
                    return k_cache.half(), v_cache.half()  # positive: CL001 both caches, every block
        """,
    },
}


@pytest.fixture
def tree_cache(tmp_path, monkeypatch):
    yield from fresh_tree_caches(tmp_path, monkeypatch)


@pytest.mark.parametrize("name", sorted(PACKAGES))
def test_overridden_hooks_across_modules(tmp_path, tree_cache, name):
    write_tree(tmp_path, PACKAGES[name])
    expected = marked_lines(tmp_path)
    assert expected
    assert tree_findings(tmp_path) == expected
    assert tree_findings(tmp_path, prune=False) == expected
