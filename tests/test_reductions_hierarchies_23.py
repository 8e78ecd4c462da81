"""Round 23 (family_recall_21), in sglang, vLLM, lmdeploy and TRT-LLM styles other than the corpus's:
- operations with a dtype parameter that convert their input first (rules/casts.toml [dtype_arguments]):
  `torch.sum(pool, dtype=d)`, `pool.mean(dtype=d)`, `torch.linalg.vector_norm(pool, dtype=d)`, `F.softmax(pool,
  -1, dtype=d)`, `pool.cumsum(0, dtype=d)`: the whole input converted; without `dtype=` nothing is;
- the vLLM MLA calling convention in `forward_decode` / `forward_prefill` / `__call__` helpers as the paged one;
- a mapping filled by `d.update(<pairs>)` holds each pair's value, not the pair: `b[rows]` of a value is a gather;
- class and static methods reached through a class held in an attribute (`self.layout.dense(kv)` of
  `layout = Bf16Layout`), `cls.m(...)` and `super().m(...)`: the conversion is the method's own line;
- builtin container subclasses (list, dict, tuple) whose access dunder converts `super().__getitem__(k)`.
Each positive has look-alikes beside it; the pruned analysis gives the whole file's findings, with and
without filler."""

from __future__ import annotations

import pytest

from marked_cases import assert_marked_lines, assert_pruned_is_whole

CASES = {
    "nansum_cumsum_method_lmdeploy": """\
import torch


class KVStatsRecorder:
    def forward(self, query, key, value, k_cache, v_cache, attn_metadata, k_scales_zeros=None):
        totals = k_cache.nansum(dtype=torch.float32)  # positive: CL001 the whole key cache in fp32
        run = torch.cumsum(v_cache, 0, dtype=torch.float64)  # positive: CL001 function form
        rows = k_cache[attn_metadata.block_offsets].sum(dtype=torch.float32)  # negative: blocks first
        plain = torch.cumsum(v_cache, 0)  # negative: no dtype asked
        q32 = query.sum(dim=-1, dtype=torch.float32)  # negative: the query
        sz = k_scales_zeros.to(torch.float32)  # negative: scales
        return totals, run, rows, plain, q32, sz
""",
    "softmax_dtype_functional_sglang": """\
import torch
import torch.nn.functional as F


class SparseScoreBackend:
    def forward_extend(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        k_buf = forward_batch.token_to_kv_pool.get_key_buffer(layer.layer_id)
        probs = F.softmax(k_buf, -1, dtype=torch.float32)  # positive: CL001 every slot in fp32
        logp = torch.log_softmax(k_buf[forward_batch.out_cache_loc], -1, dtype=torch.float32)  # negative: rows
        same = F.softmax(k_buf, dim=-1)  # negative: no dtype asked
        return probs, logp, same
""",
    "matrix_norm_prod_trtllm": """\
import torch


class KVHealthProbe:
    def __init__(self, kv_cache_manager):
        self.kv_cache_manager = kv_cache_manager

    def _forward_step(self, scheduled_requests, layer_idx, block_ids):
        buf = self.kv_cache_manager.get_buffers(layer_idx)
        m = torch.linalg.matrix_norm(buf, dtype=torch.float64)  # positive: CL001 whole layer in fp64
        p = buf[:, 0].prod(dim=-1, dtype=torch.float32)  # positive: CL001 the key plane keeps every block
        b = torch.linalg.matrix_norm(buf[block_ids], dtype=torch.float64)  # negative: blocks first
        d = buf.to("cuda:1")  # negative: a device move
        return m, p, b, d
""",
    "mla_forward_decode_convention_vllm": """\
import torch


class LatentProjector:
    def __init__(self, W_UV, kv_lora_rank):
        self.W_UV = W_UV
        self.kv_lora_rank = kv_lora_rank

    def forward_decode(self, q, kv_c_and_k_pe_cache, attn_metadata, layer):
        lat = kv_c_and_k_pe_cache[..., : self.kv_lora_rank]
        out = torch.matmul(lat.to(self.W_UV.dtype), self.W_UV)  # positive: CL001 last-dim part keeps every slot
        part = lat[attn_metadata.decode.block_table].to(self.W_UV.dtype)  # negative: blocks first
        w = self.W_UV.to(q.dtype)  # negative: weight
        return out, part, w
""",
    "dict_update_pairs_list_lmdeploy": """\
import torch


class CacheSnapshot:
    def __init__(self, cache_engine, num_layers):
        self.cache_engine = cache_engine
        self.num_layers = num_layers
        self.held = {}

    def forward(self, block_offsets):
        self.held.update([(i, self.cache_engine.gpu_cache[i][0]) for i in range(self.num_layers)])
        whole = [t.half() for t in self.held.values()]  # positive: CL001 every key cache, whole
        rows = {i: t[block_offsets].half() for i, t in self.held.items()}  # negative: blocks first
        return whole, rows
""",
    "dict_update_pairs_generator_trtllm": """\
import torch


class LayerDumper:
    def __init__(self, kv_cache_manager, layers):
        self.kv_cache_manager = kv_cache_manager
        self.layers = list(layers)

    def _forward_step(self, scheduled_requests, block_ids):
        table = {}
        table.update((i, self.kv_cache_manager.get_buffers(i)) for i in self.layers)
        for i, buf in table.items():
            self.dump(i, buf.float())  # positive: CL001 whole layer
        picked = [b[block_ids].float() for b in table.values()]  # negative: blocks first
        return picked

    def dump(self, i, t):
        return t
""",
    "classmethod_held_class_attribute_vllm": """\
import torch


class PlainView:
    @classmethod
    def widen(cls, buf):
        return buf


class HalfView(PlainView):
    dtype = torch.float16

    @classmethod
    def widen(cls, buf):
        return super().widen(buf).to(cls.dtype)  # positive: CL001 the whole layer cache


class FallbackImpl:
    view = HalfView

    def forward(self, layer, query, key, value, kv_cache, attn_metadata, output=None):
        dense = self.view.widen(kv_cache)
        fresh = key.to(torch.float16)  # negative: new-token keys
        scale = layer._v_scale.to(torch.float16)  # negative: scale
        return dense, fresh, scale
""",
    "classmethod_cls_split_super_sglang": """\
import torch


class PoolView:
    @classmethod
    def unbind(cls, kv):
        return kv.chunk(2, dim=-1)


class BF16PoolView(PoolView):
    dtype = torch.bfloat16

    @classmethod
    def unbind(cls, kv):
        lo, hi = super().unbind(kv)
        return lo.to(cls.dtype), hi  # positive: CL001 every slot of the low half


class LoRAView(PoolView):
    dtype = torch.float32

    @classmethod
    def widened(cls, kv):
        a, b = cls.unbind(kv)
        return a.to(cls.dtype)  # positive: CL001 every slot, through cls


class MLABackend:
    def __init__(self, narrow):
        self.views = BF16PoolView
        self.lora = LoRAView

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        buf = forward_batch.token_to_kv_pool.get_key_buffer(layer.layer_id)
        lo, hi = self.views.unbind(buf)
        a = self.lora.widened(buf)
        rows = buf[forward_batch.out_cache_loc].to(torch.bfloat16)  # negative: rows first
        return lo, hi, a, rows
""",
    "dict_subclass_getitem_super_trtllm": """\
import torch


class WideLayers(dict):
    dtype = torch.float32

    def __getitem__(self, layer_idx):
        t = super().__getitem__(layer_idx)
        return t.to(self.dtype)  # positive: CL001 whole layer, on every lookup


class NormRunner:
    def __init__(self, kv_cache_manager, layers):
        self.kv_cache_manager = kv_cache_manager
        self.wide = WideLayers({i: kv_cache_manager.get_buffers(i) for i in layers})
        self.scales = {i: torch.ones(1) for i in layers}

    def _forward_step(self, scheduled_requests, layer_idx, block_ids):
        w = self.wide[layer_idx]
        s = self.scales[layer_idx].to(torch.float32)  # negative: a scale
        r = self.kv_cache_manager.get_buffers(layer_idx)[block_ids].float()  # negative: blocks first
        return w, s, r
""",
    "tuple_subclass_getitem_super_lmdeploy": """\
import torch


class HalfPair(tuple):
    def __getitem__(self, i):
        return super().__getitem__(i).half()  # positive: CL001 the whole key or value cache


class PagedRunner:
    def forward(self, query, key, value, past_key_value, attn_metadata):
        pair = HalfPair(past_key_value)
        k = pair[0]
        blocks = past_key_value[0][attn_metadata.block_offsets].half()  # negative: blocks first
        q = query.half()  # negative: query
        return k, blocks, q
""",
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_marked_lines(tmp_path, name):
    assert_marked_lines(tmp_path, name, CASES[name])


@pytest.mark.parametrize("name", sorted(CASES))
@pytest.mark.parametrize("filler", [False, True], ids=["as-is", "with-filler"])
def test_pruned_is_whole(tmp_path, name, filler):
    assert_pruned_is_whole(tmp_path, name, CASES[name], filler)
