"""Round 31 (family_recall_28, helper C): families behind the blind corpus's misses and false positives, in
sglang, vLLM, lmdeploy and TensorRT-LLM styles other than the corpus's:
- an index read from an object's field (`st.block_ids` of `st = Step(buf, meta.block_offsets[0])`, a record
  built by position or keyword, or a plain class storing what it is handed): what was passed for that field
  decides its kind, so a block table read off a record gathers rows;
- a tail slice `[-n:]` whose count is handed in (a helper's `num_blocks` parameter) selects the last blocks,
  whatever its name; one reading the object's own state (`[-self.num_blocks:]`) still reaches every slot;
- a copy whose source is already converted (`d` of `for s, d in zip(static, dense)`, dense a comprehension
  of casts) converts nothing the cast did not: reported once, at the cast;
- a loop over a list named as layer indices handed in (`for i in self.target_layer_ids`): each element is a
  layer index, so `mgr.get_buffers(i)` is the layer's whole buffer;
- plan dtypes through `**dict(zip(KEYS, self.plan_dtypes))` and through a generator's yields (`yield from
  (dt, dt)`, `yield q; yield kv`) unpacked into names (CL002);
- a sibling module's function bound in a class body as `staticmethod(mod.f)` (or plainly) and called
  through self: its callers link it (package tests).
Each positive has look-alikes beside it; the pruned analysis gives the whole file's findings."""

# ruff: noqa: E501
from __future__ import annotations

import pytest

from marked_cases import assert_marked_lines, assert_pruned_is_whole
from package_cases import fresh_tree_caches, marked_lines, tree_findings, write_tree

CASES = {
    # -- an index read from an object's field ------------------------------------------------------
    "record_keyword_block_table_trtllm": """\
from typing import NamedTuple

import torch


class _DraftView(NamedTuple):
    k_cache_buffer: torch.Tensor
    offsets: torch.Tensor
    scale: torch.Tensor


class EagleDraftAttention:
    def __init__(self, layer_idx):
        self.layer_idx = layer_idx

    def _view(self, attn_metadata):
        mgr = attn_metadata.kv_cache_manager
        return _DraftView(scale=mgr.kv_scale_orig_quant, offsets=attn_metadata.kv_cache_block_offsets[1], k_cache_buffer=mgr.get_buffers(self.layer_idx))

    def forward(self, q, k, v, attn_metadata):
        view = self._view(attn_metadata)
        rows = view.k_cache_buffer[view.offsets].to(q.dtype)  # negative: the step's blocks gathered first
        whole = view.k_cache_buffer.to(q.dtype)  # positive: CL001 the record's whole layer buffer
        s = view.scale.float()  # negative: a scale
        return rows, whole, s
""",
    "dataclass_positional_page_table_sglang": """\
from dataclasses import dataclass

import torch


@dataclass
class _Pages:
    v_buffer: torch.Tensor
    table: torch.Tensor


class PagedFallbackBackend:
    def __init__(self, model_runner):
        self.pool = model_runner.token_to_kv_pool

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        p = _Pages(self.pool.get_value_buffer(layer.layer_id), forward_batch.req_to_token_pool.req_to_token[forward_batch.req_pool_indices])
        rows = p.v_buffer[p.table].to(q.dtype)  # negative: the requests' pages gathered first
        full = p.v_buffer.to(q.dtype)  # positive: CL001 the whole value buffer, held by the record
        return rows, full
""",
    # -- a tail slice whose count is handed in ---------------------------------------------------------
    "tail_handed_count_vllm": """\
import torch


class RecentBlocksImpl:
    def __init__(self, num_blocks, dtype):
        self.num_blocks = num_blocks
        self.dtype = dtype

    def _recent(self, kv_cache, num_blocks):
        return kv_cache[:, -num_blocks:].to(self.dtype)  # negative: the last blocks only

    def _recent_pages(self, kv_cache, num_pages):
        last = num_pages * 2
        return kv_cache[:, -last:].to(self.dtype)  # negative: a handed count, through a local

    def forward(self, layer, query, key, value, kv_cache, attn_metadata, output=None):
        everything = kv_cache[:, -self.num_blocks:].to(self.dtype)  # positive: CL001 the object's own block count: every block
        return everything, self._recent(kv_cache, 4), self._recent_pages(kv_cache, 2)
""",
    "tail_param_lmdeploy": """\
import torch


def tail_blocks(k_cache, num_blocks, dtype):
    return k_cache[-num_blocks:].to(dtype)  # negative: the tail blocks selected first


class TailAttentionImpl:
    def forward(self, query, key, value, k_cache, v_cache, attn_metadata, k_scales_zeros=None, v_scales_zeros=None):
        whole = v_cache.to(query.dtype)  # positive: CL001 the whole value cache
        return whole, tail_blocks(k_cache, 8, query.dtype)
""",
    # -- a copy of an already converted value ----------------------------------------------------------
    "copy_after_cast_zip_loop_vllm": """\
import torch


class StaticKVGraphWrapper:
    def __init__(self, runnable, vllm_config, runner):
        self.runnable = runnable
        self.runner = runner
        self.dtype = vllm_config.model_config.dtype
        self.static = []
        self.mirror = []

    def capture(self):
        caches = self.runner.kv_caches
        self.static = [torch.empty_like(c, dtype=self.dtype) for c in caches]  # negative: allocation (setup)
        self.mirror = [torch.empty_like(c, dtype=self.dtype) for c in caches]  # negative: allocation (setup)

    def __call__(self, *args, **kwargs):
        caches = self.runner.kv_caches
        widened = [c.to(self.dtype) for c in caches]  # positive: CL001 every layer's whole cache (one finding)
        for s, d in zip(self.static, widened):
            s.copy_(d)  # negative: already in the buffer's dtype
        for m, c in zip(self.mirror, caches):
            m.copy_(c)  # positive: CL001 the cache itself copied into a buffer of another dtype
        return self.runnable(*args, **kwargs)
""",
    "copy_after_cast_nested_sglang": """\
import torch


class DraftGraphRunner:
    def __init__(self, model_runner):
        self.pool = model_runner.token_to_kv_pool
        self.num_layers = model_runner.model_config.num_hidden_layers
        self.bufs = []

    def capture(self):
        self.bufs = [torch.empty_like(self.pool.get_key_buffer(i), dtype=torch.bfloat16) for i in range(self.num_layers)]  # negative: allocation (setup)

    def replay(self, forward_batch):
        pairs = [(self.bufs[i], self.pool.get_key_buffer(i).bfloat16()) for i in range(self.num_layers)]  # positive: CL001 every layer's whole key buffer
        for dst, src in pairs:
            dst.copy_(src)  # negative: the source is already BF16
        return forward_batch.seq_lens.to(torch.int32)  # negative: lengths
""",
    # -- a loop over layer indices handed in --------------------------------------------------------
    "target_layer_ids_loop_trtllm": """\
import torch


class MTPDraftRunner:
    def __init__(self, spec_config, target_manager, capture_layer_ids):
        self.target_manager = target_manager
        self.capture_layer_ids = capture_layer_ids
        self.dtype = torch.bfloat16

    def forward(self, input_ids, hidden_states, attn_metadata):
        mgr = self.target_manager
        dense = [mgr.get_buffers(i).to(self.dtype) for i in self.capture_layer_ids]  # positive: CL001 each target layer's whole buffer
        rows = [mgr.get_buffers(i)[attn_metadata.kv_cache_block_offsets[0]].to(self.dtype) for i in self.capture_layer_ids]  # negative: blocks gathered first
        return dense, rows, hidden_states.to(self.dtype)  # negative: hidden states
""",
    "layer_indices_param_loop_trtllm": """\
import torch


class Eagle3Collector:
    def __init__(self, base_mgr):
        self.base_mgr = base_mgr

    def collect(self, attn_metadata, target_layer_indices):
        mgr = self.base_mgr
        out = []
        for lid in target_layer_indices:
            out.append(mgr.get_buffers(lid).float())  # positive: CL001 the layer's whole buffer, per target layer
            out.append(mgr.get_buffers(lid)[attn_metadata.kv_cache_block_offsets[0]].float())  # negative: blocks gathered first
        return out

    def forward(self, input_ids, hidden_states, attn_metadata):
        return self.collect(attn_metadata, self.spec_layer_indices)
""",
    # -- plan dtypes through dict(zip(...)) and generators -----------------------------------------
    "plan_zip_keys_attribute_vllm": """\
import torch

_DTYPE_KWARGS = ["q_data_type", "kv_data_type"]


class FlashInferMLAMetadataBuilder:
    def __init__(self, kv_cache_spec, layer_names, vllm_config, device, decode_wrapper, prefill_wrapper):
        self.kv_cache_dtype = kv_cache_spec.dtype
        self.model_dtype = vllm_config.model_config.dtype
        self.dense_dtypes = [self.model_dtype, self.model_dtype]
        self.native_dtypes = [self.model_dtype, self.kv_cache_dtype]
        self.decode_wrapper = decode_wrapper
        self.prefill_wrapper = prefill_wrapper

    def build(self, common_prefix_len, m, fast_build=False):
        self.decode_wrapper.plan(  # positive: CL002 both dtypes the model dtype, zipped onto the keywords
            m.qo_indptr, m.kv_indptr, m.kv_indices, m.kv_lens, m.num_heads, 512, 64, m.page_size, False, m.sm_scale,
            **dict(zip(_DTYPE_KWARGS, self.dense_dtypes)),
        )
        self.prefill_wrapper.plan(m.qo_indptr, m.kv_indptr, m.kv_indices, m.kv_lens, m.num_heads, 512, 64, m.page_size, True, m.sm_scale, **dict(zip(_DTYPE_KWARGS, self.native_dtypes)))  # negative: kv dtype is the cache's
        return m
""",
    "plan_generator_yields_sglang": """\
import torch


def _as_model(dtype):
    yield from [dtype, dtype]


def _native(q_dtype, kv_dtype):
    yield q_dtype
    yield kv_dtype


class FlashInferMLABackend:
    def __init__(self, model_runner):
        self.dtype = model_runner.dtype
        self.kv_cache_dtype = model_runner.kv_cache_dtype
        self.decode_wrapper = model_runner.decode_wrapper
        self.prefill_wrapper = model_runner.prefill_wrapper

    def init_forward_metadata(self, forward_batch, qo_indptr, kv_indptr, kv_indices, kv_lens, sm_scale):
        q_dt, kv_dt = _as_model(self.dtype)
        self.decode_wrapper.plan(qo_indptr, kv_indptr, kv_indices, kv_lens, 16, 512, 64, 1, False, sm_scale, q_dt, kv_dt)  # positive: CL002 both from the generator, the model dtype
        nq, nkv = _native(self.dtype, self.kv_cache_dtype)
        self.prefill_wrapper.plan(qo_indptr, kv_indptr, kv_indices, kv_lens, 16, 512, 64, 1, True, sm_scale, nq, nkv)  # negative: kv dtype is the pool's
""",
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_marked_lines(tmp_path, name):
    assert_marked_lines(tmp_path, name, CASES[name])


@pytest.mark.parametrize("name", sorted(CASES))
@pytest.mark.parametrize("filler", [False, True])
def test_pruned_is_whole(tmp_path, name, filler):
    assert_pruned_is_whole(tmp_path, name, CASES[name], filler)


# -- a sibling module's function bound in a class body -------------------------------------------------
@pytest.fixture
def _own_tree_cache(tmp_path, monkeypatch):
    yield from fresh_tree_caches(tmp_path, monkeypatch)


PACKAGES = {
    "staticmethod_module_attr_trtllm": {
        "mtp/__init__.py": "",
        "mtp/readers.py": """
            def whole_layer(mgr, layer_idx, dtype):
                return mgr.get_buffers(layer_idx).to(dtype)  # positive: the whole target layer, run as MTPHead._layer


            def layer_rows(mgr, layer_idx, offsets, dtype):
                return mgr.get_buffers(layer_idx)[offsets].to(dtype)  # negative: blocks gathered first
        """,
        "mtp/head.py": """
            from . import readers


            class MTPHead:
                _layer = staticmethod(readers.whole_layer)
                _rows = staticmethod(readers.layer_rows)

                def forward(self, input_ids, attn_metadata):
                    mgr = attn_metadata.kv_cache_manager
                    return self._layer(mgr, self.layer_idx, self.dtype), self._rows(mgr, self.layer_idx, attn_metadata.kv_cache_block_offsets[0], self.dtype)
        """,
    },
    "staticmethod_from_import_sglang": {
        "mla/__init__.py": "",
        "mla/widen.py": """
            def widen_latent(kv_buffer, dtype):
                return kv_buffer.to(dtype)  # positive: the whole latent buffer, bound as a staticmethod


            def widen_rows(kv_buffer, loc, dtype):
                return kv_buffer[loc].to(dtype)  # negative: rows first
        """,
        "mla/backend.py": """
            from .widen import widen_latent, widen_rows


            class TritonMLAFallback:
                _dense = staticmethod(widen_latent)
                _rows = staticmethod(widen_rows)

                def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
                    buf = forward_batch.token_to_kv_pool.get_key_buffer(layer.layer_id)
                    return self._dense(buf, q.dtype), self._rows(buf, forward_batch.out_cache_loc, q.dtype)
        """,
    },
}


@pytest.mark.usefixtures("_own_tree_cache")
@pytest.mark.parametrize("name", sorted(PACKAGES))
def test_class_body_bound_sibling_function(tmp_path, name):
    write_tree(tmp_path, PACKAGES[name])
    expected = marked_lines(tmp_path)
    assert expected
    assert tree_findings(tmp_path) == expected
    assert tree_findings(tmp_path, prune=False) == expected
