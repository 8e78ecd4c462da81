"""Issue 19, round 21 (family_recall_19 leftovers), in styles other than the corpus's:
- a dict constructor called through its module (`types.MappingProxyType(d)`, `collections.ChainMap(d)`,
  `collections.OrderedDict(d)`) of a dict of whole pools holds those pools (it was read as a method of the
  module object);
- a class made by `type(name, bases, ns)` / `types.new_class` in a def (called at once, returned), its bases a
  tuple display, a choice between displays or a name bound to those: its bases are one family, so a base's
  `self.m(...)` runs a mixin's m.
Each positive has look-alikes beside it; the pruned analysis gives the whole file's findings, with and
without filler."""

from __future__ import annotations

import pytest

from marked_cases import assert_marked_lines, assert_pruned_is_whole

CASES = {
    "chainmap_values_vllm": """\
import collections

import torch


class PlaneTable:
    def __init__(self, kv_caches, scales):
        self.planes = collections.ChainMap({i: kv for i, kv in enumerate(kv_caches)})
        self.scales = collections.ChainMap({i: s for i, s in enumerate(scales)})


class FlexImpl:
    def __init__(self, runner):
        self.table = PlaneTable(runner.kv_caches, runner.kv_scales)

    def forward(self, layer, query, key, value, kv_cache, attn_metadata):
        wide = [p.to(query.dtype) for p in self.table.planes.values()]  # positive: CL001
        sc = [s.to(query.dtype) for s in self.table.scales.values()]  # negative: scales
        return wide, sc
""",
    "mappingproxy_get_trtllm": """\
import types

import torch


class LayerViews:
    def __init__(self, manager, num_layers):
        self.bufs = types.MappingProxyType({i: manager.get_buffers(i) for i in range(num_layers)})


class Attention:
    def __init__(self, manager, num_layers):
        self.views = LayerViews(manager, num_layers)

    def forward(self, q, metadata, layer_idx):
        buf = self.views.bufs.get(layer_idx)
        rows = buf[metadata.block_ids].to(q.dtype)  # negative: the step's blocks
        same = buf.to(buf.dtype)  # negative: same dtype
        whole = buf.to(q.dtype)  # positive: CL001
        return rows, same, whole
""",
    "type_made_in_def_lmdeploy": """\
import torch


class TritonAttentionImpl:
    def _widen(self, k_cache, v_cache, dtype):
        return k_cache, v_cache

    def forward(self, query, key, value, k_cache, v_cache, attn_metadata):
        k, v = self._widen(k_cache, v_cache, query.dtype)
        return k, v


class _CastMixin:
    def _widen(self, k_cache, v_cache, dtype):
        return k_cache.to(dtype), v_cache.to(dtype)  # positive: CL001


class _BlocksMixin:
    def _widen(self, k_cache, v_cache, dtype):
        ids = self.block_offsets
        return k_cache[ids].to(dtype), v_cache[ids].to(dtype)  # negative: block rows


def make_impl(native_fp8):
    mixins = (_BlocksMixin, TritonAttentionImpl) if native_fp8 else (_CastMixin, TritonAttentionImpl)
    cls = type("AscendImpl", mixins, {})
    return cls()
""",
    "new_class_choice_sglang": """\
import types

import torch


class MLABackend:
    def _dense_latent(self, buf):
        return buf

    def forward_decode(self, q, k, v, layer, forward_batch):
        buf = forward_batch.token_to_kv_pool.get_key_buffer(layer.layer_id)
        latent = self._dense_latent(buf)
        return latent


class _WidenLatent:
    def _dense_latent(self, buf):
        scale = torch.ones(1)
        s = scale.float()  # negative: a scale tensor
        return buf.to(torch.bfloat16)  # positive: CL001


def backend_for(kind):
    return types.new_class("Backend", (_WidenLatent, MLABackend) if kind == "fp8" else (MLABackend,))()
""",
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_marked_lines(tmp_path, name):
    assert_marked_lines(tmp_path, name, CASES[name])


@pytest.mark.parametrize("name", sorted(CASES))
@pytest.mark.parametrize("filler", [False, True], ids=["as-is", "with-filler"])
def test_pruned_is_whole(tmp_path, name, filler):
    assert_pruned_is_whole(tmp_path, name, CASES[name], filler)
