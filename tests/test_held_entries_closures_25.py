"""Round 25 (family_recall_23), in sglang, vLLM, lmdeploy and TRT-LLM styles other than the corpus's:
- a callable chosen at runtime from a table of the module's defs (a dict or tuple display, subscripted by an
  unknown key or read with `.get(k, default)`), held in a local or an attribute and called per step with a pool:
  a converting entry converts it, reported at the entry's cast line (the pruner used to drop the file);
- a closure made and returned by a factory (nested def, lambda), held under a name that a nested def also
  spells (`widen = self._make_widener(d)` beside `def widen`) or in such an attribute, called with a pool: the
  finding belongs at the closure's cast line, not at the call.
Each positive has look-alikes beside it; the pruned analysis gives the whole file's findings, with and
without filler."""

from __future__ import annotations

import pytest

from marked_cases import assert_marked_lines, assert_pruned_is_whole

CASES = {
    "table_entry_attr_get_default_vllm": """\
import torch


def _passthrough(kv, dtype):
    return kv


def _dequant(kv, dtype):
    return kv.to(dtype)  # positive: CL001 any entry may run with the whole cache


def _scale_only(kv, dtype):
    return kv


_DEQUANT = {"auto": _passthrough, "fp8": _dequant}


class FlashAttentionImpl:
    def __init__(self, kv_cache_dtype, scale):
        self.dequant = _DEQUANT.get(kv_cache_dtype, _passthrough)
        self.k_scale = scale.to(torch.float32)  # negative: setup-time scale

    def forward(self, layer, query, key, value, kv_cache, attn_metadata):
        key_cache, value_cache = kv_cache.unbind(0)
        key_cache = self.dequant(key_cache, query.dtype)
        scale = layer._k_scale.float()  # negative: scale tensor
        key = key.to(query.dtype)  # negative: new tokens
        return key_cache, scale
""",
    "tuple_table_local_index_trtllm": """\
import torch


def _keep(buf, dtype):
    return buf


def _widen(buf, dtype):
    return buf.to(dtype)  # positive: CL001 chosen by the flag


_STAGES = (_keep, _widen)


class TrtllmAttention:
    def __init__(self, kv_cache_manager):
        self.mgr = kv_cache_manager
        self.k_scale = torch.ones(1).to("cuda")  # negative: a device move

    def forward(self, q, metadata, layer_idx):
        stage = _STAGES[int(metadata.needs_upcast)]
        buf = self.mgr.get_buffers(layer_idx)
        dense = stage(buf, q.dtype)
        rows = buf[metadata.block_ids].to(q.dtype)  # negative: rows gathered first
        return dense, rows
""",
    "self_table_attr_lmdeploy": """\
import torch


class PagedDecodeImpl:
    def __init__(self, quant_policy):
        self._readers = {0: self._as_is, 8: self._to_half}
        self.read = self._readers[quant_policy]

    def _as_is(self, cache, dtype):
        return cache

    def _to_half(self, cache, dtype):
        return cache.to(dtype)  # positive: CL001 entry of the table of methods

    def forward(self, query, key, value, k_cache, v_cache, attn_metadata):
        k = self.read(k_cache, query.dtype)
        v = v_cache.to(v_cache.dtype)  # negative: same dtype
        return k, v
""",
    "factory_closure_same_name_sglang": """\
import torch


class TritonAttnBackend:
    def _make_upcast(self, dtype):
        def upcast(buf):
            return buf.to(dtype)  # positive: CL001 the closure converts the whole buffer
        return upcast

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        upcast = self._make_upcast(q.dtype)
        pool = forward_batch.token_to_kv_pool
        k_buf = upcast(pool.get_key_buffer(layer.layer_id))
        rows = pool.get_value_buffer(layer.layer_id)[forward_batch.out_cache_loc].to(q.dtype)  # negative: rows
        scale = layer.k_scale.to(q.dtype)  # negative: scale tensor
        return k_buf, rows, scale
""",
    "factory_closure_attr_vllm": """\
import torch


def make_converter(dtype):
    def convert(t):
        return t.to(dtype)  # positive: CL001 the stored closure converts the cache
    return convert


class CPUAttentionImpl:
    def __init__(self, dtype):
        self.convert = None
        self.dtype = dtype

    def forward(self, layer, query, key, value, kv_cache, attn_metadata):
        self.convert = make_converter(query.dtype)
        dense = self.convert(kv_cache)
        key = key.to(query.dtype)  # negative: new tokens
        return dense
""",
    "factory_closure_trtllm": """\
import torch


class TrtllmGenAttention:
    def _widener(self, dtype):
        def widen(pool):
            return pool.to(dtype)  # positive: CL001 closure over the q dtype
        return widen

    def forward(self, q, metadata, layer_idx):
        widen = self._widener(q.dtype)
        buf = metadata.kv_cache_manager.get_buffers(layer_idx)
        out = widen(buf)
        kept = buf.to("cuda")  # negative: a device move
        return out, kept
""",
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_marked_lines(tmp_path, name):
    assert_marked_lines(tmp_path, name, CASES[name])


@pytest.mark.parametrize("name", sorted(CASES))
@pytest.mark.parametrize("filler", [False, True], ids=["as-is", "with-filler"])
def test_pruned_is_whole(tmp_path, name, filler):
    assert_pruned_is_whole(tmp_path, name, CASES[name], filler)
