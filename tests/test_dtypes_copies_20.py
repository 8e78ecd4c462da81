"""Issue 19, round 20 (family_recall_18: f5/f6 dtypes, copies into other dtypes), in styles other than the
corpus's:
- same-dtype provenance: a pool buffer's allocation dtype read per buffer through another object's class
  (an annotated field, an instance), a base's `__init__` parameter that a subclass's `super().__init__`
  fills, the position of a returned tuple, an element of a sliced container (`kc, vc = entry[:2]`), and an
  attribute stored one dtype constant; anything unresolved stays a conversion;
- a slice store of a whole pool into a buffer allocated with another dtype is a copy that converts, also
  where the file has no cast spelling at all (the prefilter's slice-store words);
- `.to(*self._target)` of an attribute tuple (the pruner keeps what the attribute is assigned);
- arithmetic with a full reduction (`k.abs().amax()`) keeps every slot: `(k / s).to(fp8)` is whole.
Each positive has look-alikes beside it; the pruned analysis gives the whole file's findings, with and
without filler."""

from __future__ import annotations

import pytest

from marked_cases import assert_marked_lines, assert_pruned_is_whole

CASES = {
    "split_precision_other_object_sglang": """\
import torch
from dataclasses import dataclass


class MixedPool:
    def __init__(self, size, heads, dim, layers, device):
        self.keys = [torch.empty((size, heads, dim), dtype=torch.float8_e5m2, device=device) for _ in range(layers)]
        self.vals = [torch.empty((size, heads, dim), dtype=torch.float16, device=device) for _ in range(layers)]


@dataclass
class Shard:
    store: MixedPool
    offset: int

    def pair(self, lid):
        j = lid - self.offset
        return self.store.keys[j], self.store.vals[j]


class ShardedBackend:
    def __init__(self, shards):
        self.shards = shards

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        shard = self.shards[layer.layer_id % 2]
        kb, vb = shard.pair(layer.layer_id)
        a = kb.to(torch.float16)  # positive: CL001 the fp8 keys of every slot widened
        b = vb.to(torch.float16)  # negative: the values are allocated fp16
        c = vb.to(torch.half)  # negative: the same dtype by its other name
        d = vb.to(torch.float32)  # positive: CL001 fp16 values widened to fp32
        e = kb[forward_batch.out_cache_loc].to(torch.float16)  # negative: the step's rows
        return a, b, c, d, e
""",
    "inherited_allocation_dtype_sglang": """\
import torch


class BasePool:
    def __init__(self, size, heads, dim, layers, dtype, device):
        self.key_store = [torch.zeros(size, heads, dim, dtype=dtype, device=device) for _ in range(layers)]
        self.value_store = [torch.zeros(size, heads, dim, dtype=dtype, device=device) for _ in range(layers)]

    def get_key_buffer(self, layer_id):
        return self.key_store[layer_id]

    def get_value_buffer(self, layer_id):
        return self.value_store[layer_id]


class Fp8KeysPool(BasePool):
    def __init__(self, size, heads, dim, layers, device):
        super().__init__(size, heads, dim, layers, torch.bfloat16, device)
        fp8 = torch.float8_e4m3fn
        self.key_store = [torch.zeros(size, heads, dim, dtype=fp8, device=device) for _ in range(layers)]
        self.work_dtype = torch.bfloat16
        self.wide_dtype = torch.float32

    def get_key_buffer(self, layer_id):
        return self.key_store[layer_id].to(self.work_dtype)  # positive: CL004 fp8 keys widened on each read

    def get_value_buffer(self, layer_id):
        return self.value_store[layer_id].to(self.work_dtype)  # negative: the values are bf16 already

    def get_value_rows(self, layer_id, loc):
        return self.value_store[layer_id][loc].to(self.wide_dtype)  # negative: gathered rows

    def get_value_wide(self, layer_id):
        return self.value_store[layer_id].to(self.wide_dtype)  # positive: CL004 bf16 values widened to fp32


class Backend:
    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        pool = forward_batch.token_to_kv_pool
        return pool.get_key_buffer(layer.layer_id), pool.get_value_buffer(layer.layer_id)
""",
    "sliced_entry_lmdeploy": """\
import torch
from torch import nn


class Attn(nn.Module):
    def forward(self, hidden_states, rotary_pos_emb, past_key_value, attn_metadata):
        kc, vc = past_key_value[:2]
        ks, vs = past_key_value[2:4]
        same = kc.to(past_key_value[0].dtype)  # negative: the key cache's own dtype
        again = vc.type(past_key_value[1].dtype)  # negative: the value cache's own dtype
        other = vc.to(past_key_value[0].dtype)  # positive: CL001 the key cache's dtype is not known to be the value's
        scaled = ks.to(hidden_states.dtype)  # negative: the scales
        wide = kc.to(hidden_states.dtype)  # positive: CL001 the whole key cache in the activations' dtype
        return same, again, other, scaled, wide, vs
""",
    "slice_store_staging_trtllm": """\
import torch


class WideMirror:
    def __init__(self, manager, layer_idx, work_dtype=torch.float16):
        cache = manager.get_buffers(layer_idx)
        self.dense = torch.empty(cache.shape, dtype=work_dtype, device=cache.device)
        self.same = torch.empty_like(cache)
        self.dense[:] = cache  # negative: filled once at construction


class MirroredAttention:
    def __init__(self, layer_idx, mirror: WideMirror):
        self.layer_idx = layer_idx
        self.mirror = mirror

    def forward(self, q, k, v, metadata):
        cache = metadata.kv_cache_manager.get_buffers(self.layer_idx)
        m = self.mirror
        m.dense[..., :] = cache  # positive: CL001 every block stored into fp16
        m.dense[:, 0] = cache[:, 0]  # positive: CL001 the key plane of every block
        m.same[...] = cache  # negative: a buffer of the cache's own dtype
        used = metadata.num_blocks
        m.dense[:used] = cache[:used]  # negative: the used blocks only
        m.dense[metadata.block_ids] = cache[metadata.block_ids]  # negative: gathered blocks
        return q, m.dense
""",
    "star_target_sglang": """\
import torch


class HpuDecode:
    def __init__(self, model_runner):
        self.token_to_kv_pool = model_runner.token_to_kv_pool
        self._spec = (model_runner.device, torch.float32)
        self._where = (model_runner.device,)

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        kb = self.token_to_kv_pool.get_key_buffer(layer.layer_id)
        vb = self.token_to_kv_pool.get_value_buffer(layer.layer_id)
        a = kb.to(*self._spec, non_blocking=True)  # positive: CL001 (device, dtype) unpacked
        b = vb.to(*self._where)  # negative: a device only
        c = vb[forward_batch.out_cache_loc].to(*self._spec)  # negative: the step's rows
        return a, b, c
""",
    "scalar_scale_arithmetic_sglang": """\
import torch


class WireQuantizer:
    def __init__(self, pool):
        self.pool = pool
        self.out = {}

    def send(self, layer_id, loc):
        vb = self.pool.get_value_buffer(layer_id)
        s = vb.float().abs().max().clamp(min=1e-4) / 240.0  # positive: CL001 the whole layer widened for its max
        self.out["v"] = (vb / s).to(torch.float8_e4m3fn)  # positive: CL001 every slot quantized for the wire
        self.out["half"] = (vb * 0.5).to(torch.float8_e5m2)  # positive: CL001 a constant rescale of every slot
        self.out["rows"] = (vb[loc] / s).to(torch.float8_e4m3fn)  # negative: the step's rows
        self.out["s"] = (s * 2).to(torch.float32)  # negative: the scalar scale
        return self.out


class Backend:
    def __init__(self, model_runner):
        self.q = WireQuantizer(model_runner.token_to_kv_pool)

    def forward_extend(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        self.q.send(layer.layer_id, forward_batch.out_cache_loc)
        return q
""",
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_marked_lines(tmp_path, name):
    assert_marked_lines(tmp_path, name, CASES[name])


@pytest.mark.parametrize("name", sorted(CASES))
@pytest.mark.parametrize("filler", [False, True], ids=["as-is", "with-filler"])
def test_pruned_is_whole(tmp_path, name, filler):
    assert_pruned_is_whole(tmp_path, name, CASES[name], filler)
