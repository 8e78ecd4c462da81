"""Round 34 (issue 19), in sglang, vLLM, lmdeploy and TensorRT-LLM styles other than the blind corpora's:

- attributes stored on a plain holder object (an empty class of the module, a SimpleNamespace) by tuple or
  starred unpacking, chained, annotated or augmented assignment, read where the holder is handed on
  (`box.k, box.v = kv.unbind(0)`; `self._attend(box, q)`; `box.k.to(q.dtype)`);
- whole-keeping ops held as modules or callables (`nn.Flatten`, `nn.Unflatten`, `nn.Identity`, a
  `nn.Sequential` of them, `partial(torch.flatten, ...)`): calling one keeps the whole cache whole;
- a pool class's own method or property converting every layer of its own buffer: CL004 (the pool's
  accessor), whatever its name; the same conversion in a class that is no pool stays CL001.

Each positive has look-alikes beside it (blocks or rows gathered first, a scale, the query, a projection);
pruned and whole analysis agree."""

# ruff: noqa: E501
from __future__ import annotations

import pytest

from marked_cases import assert_marked_lines, assert_pruned_is_whole

CASES = {
    "namespace_unpacked_pair_sglang": """\
from types import SimpleNamespace

import torch


class TritonDecodeFallback:
    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        ns = SimpleNamespace()
        ns.keys, ns.values = forward_batch.token_to_kv_pool.get_kv_buffer(layer.layer_id)
        return self._widen(ns, q, layer, forward_batch)

    def _widen(self, ns, q, layer, forward_batch):
        vals = ns.values.to(q.dtype)  # positive: CL001 every slot of the layer's values
        keys = ns.keys[forward_batch.out_cache_loc].to(q.dtype)  # negative: rows of the batch
        s = layer.k_scale.to(q.dtype)  # negative: a scale
        return keys * s, vals
""",
    "chained_holder_store_vllm": """\
import torch


class _Slot:
    pass


class TuringPagedImpl:
    def forward(self, layer, query, key, value, kv_cache, attn_metadata, output=None):
        held = _Slot()
        spare = _Slot()
        held.cache = spare.cache = kv_cache
        return self._run(held, query, attn_metadata)

    def _run(self, held, query, attn_metadata):
        dense = held.cache.to(query.dtype)  # positive: CL001 every block of the layer
        rows = held.cache[:, attn_metadata.block_table[0]].to(query.dtype)  # negative: the blocks of one request
        q = query.to(torch.float32)  # negative: the query
        return dense, rows, q
""",
    "augmented_tuple_bag_lmdeploy": """\
import torch


class _Bag:
    def __init__(self):
        self.caches = ()


class CambDecodeImpl:
    def forward(self, query, key, value, k_cache, v_cache, attn_metadata):
        bag = _Bag()
        bag.caches += (k_cache, v_cache)
        return self._decode(bag, query, attn_metadata)

    def _decode(self, bag, query, attn_metadata):
        k_all = bag.caches[0].half()  # positive: CL001 the whole key cache added to the bag
        blocks = attn_metadata.block_offsets[0]
        v_rows = bag.caches[1][blocks].half()  # negative: blocks of the first sequence
        return k_all, v_rows, query.half()  # negative: the query
""",
    "annotated_and_starred_planes_trtllm": """\
import torch


class _Planes:
    pass


class SM87GenerationAttention:
    def forward(self, q, k, v, metadata, kv_cache_manager):
        box = _Planes()
        box.kv: torch.Tensor = kv_cache_manager.get_buffers(self.layer_idx)
        box.keys, *box.others = box.kv.unbind(1)
        return self._attend(box, q, metadata)

    def _attend(self, box, q, metadata):
        k = box.keys.to(torch.bfloat16)  # positive: CL001 the key plane of every block
        whole = box.kv.float()  # positive: CL001 every block of the layer
        picked = box.kv[metadata.kv_cache_block_offsets[0]].float()  # negative: the blocks of one request
        return k, whole, picked, q.to(torch.bfloat16)  # negative: the query
""",
    "unflatten_module_lmdeploy": """\
import torch
from torch import nn


class MacaPagedAttention(nn.Module):
    def __init__(self, block_size, scale):
        super().__init__()
        self.split = nn.Unflatten(0, (-1, block_size))
        self.proj = nn.Linear(128, 128)
        self.scale = scale

    def forward(self, query, key, value, k_cache, v_cache, attn_metadata):
        k_blocks = self.split(k_cache).float()  # positive: CL001 every slot of the key cache, regrouped
        new_k = self.split(key).float()  # negative: the new tokens
        mixed = self.proj(v_cache).float()  # negative: a projection makes a new tensor, not the cache
        return k_blocks, new_k, mixed
""",
    "identity_module_sglang": """\
import torch


class NPUDecodeBackend:
    def __init__(self, model_runner):
        self.passthrough = torch.nn.Identity()

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        k_buf = forward_batch.token_to_kv_pool.get_key_buffer(layer.layer_id)
        dense = self.passthrough(k_buf).to(q.dtype)  # positive: CL001 every slot of the layer
        rows = self.passthrough(k_buf[forward_batch.out_cache_loc]).to(q.dtype)  # negative: rows of the batch
        return dense, rows
""",
    "sequential_chain_local_vllm": """\
import torch
from torch import nn


class XPUFallbackImpl:
    def forward(self, layer, query, key, value, kv_cache, attn_metadata, output=None):
        chain = nn.Sequential(nn.Flatten(0, 1), nn.Identity())
        keys = chain(kv_cache[0]).to(query.dtype)  # positive: CL001 every block of the key cache, tokens merged
        picked = chain(kv_cache[1][attn_metadata.block_table[0]]).to(query.dtype)  # negative: blocks of one request
        return keys, picked, query.to(torch.float32)  # negative: the query
""",
    "partial_flatten_held_trtllm": """\
import functools

import torch


class VanillaAttentionFallback:
    def __init__(self, layer_idx):
        self.layer_idx = layer_idx
        self.merge = functools.partial(torch.flatten, start_dim=0, end_dim=1)

    def forward(self, q, k, v, metadata, kv_cache_manager):
        kv = kv_cache_manager.get_buffers(self.layer_idx)
        flat = self.merge(kv).to(torch.bfloat16)  # positive: CL001 every block of the layer, tokens merged
        rows = self.merge(kv[metadata.kv_cache_block_offsets[0]]).to(torch.bfloat16)  # negative: one request's blocks
        return flat, rows
""",
    "pool_property_every_layer_sglang": """\
import torch


class FP8MHAPool:
    def __init__(self, size, layer_num, dtype, model_dtype):
        self.dtype, self.model_dtype, self.layer_num = dtype, model_dtype, layer_num
        self.k_buffer = [torch.zeros((size + 1, 8, 128), dtype=torch.uint8) for _ in range(layer_num)]
        self.v_buffer = [torch.zeros((size + 1, 8, 128), dtype=torch.uint8) for _ in range(layer_num)]

    def get_key_buffer(self, layer_id):
        return self.k_buffer[layer_id].view(self.dtype)  # negative: a zero-copy reinterpret

    @property
    def all_values_bf16(self):
        return [self.v_buffer[i].view(self.dtype).to(torch.bfloat16) for i in range(self.layer_num)]  # positive: CL004 every layer converted by the pool

    def rows(self, layer_id, loc):
        return self.k_buffer[layer_id][loc].view(self.dtype).to(self.model_dtype)  # negative: rows first


class DenseReplayBackend:
    def __init__(self, model_runner):
        self.k_buffer = model_runner.token_to_kv_pool.k_buffer

    def refresh(self, q):
        return [buf.to(q.dtype) for buf in self.k_buffer]  # positive: CL001 a backend converting the pool's layers
""",
    "pool_method_loop_layers_lmdeploy": """\
import torch


class Int8BlockCache:
    def __init__(self, num_blocks, layer_num):
        self.kv_buffer = [torch.zeros((num_blocks, 2, 64, 8, 128), dtype=torch.int8) for _ in range(layer_num)]
        self.scales = torch.ones(layer_num)

    def get_kv_buffer(self, layer_id):
        return self.kv_buffer[layer_id][:, 0], self.kv_buffer[layer_id][:, 1]  # negative: views

    def export_half(self):
        return tuple(buf.half() for buf in self.kv_buffer)  # positive: CL004 the cache converting each whole layer

    def export_as(self, dtype):
        out = []
        for buf in self.kv_buffer:
            out.append(buf.to(dtype))  # positive: CL001 a conversion to the dtype its caller asks for
        return out, self.scales.half()  # negative: the scales

    def layer_peak(self):
        return max(buf.float().abs().max() for buf in self.kv_buffer)  # positive: CL001 a reduction, not handed out
""",
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_marked_lines(tmp_path, name):
    assert_marked_lines(tmp_path, name, CASES[name])


@pytest.mark.parametrize("name", sorted(CASES))
@pytest.mark.parametrize("filler", [False, True], ids=["as-is", "with-filler"])
def test_pruned_is_whole(tmp_path, name, filler):
    assert_pruned_is_whole(tmp_path, name, CASES[name], filler)
