"""Round 34: callables held in containers and unpacked, and elements regrouped by batching helpers.

A bound accessor or method kept in a tuple, list or dict (`self._getters = (pool.get_key_buffer, ...)`,
`self.readers = {"target": mgr.get_buffers, ...}`) is what a name unpacked from that container holds:
`get_k, get_v = self._getters`, `for kind, read in self.readers.items()`, `for conv, c in zip(self._convs,
caches)` (ObjectFlow.callable_values reads that position); `itertools.batched(planes, 2)` and `more_itertools.chunked` keep each element
an element (rules/accessors.toml [iteration] windows).
"""

# ruff: noqa: E501
from __future__ import annotations

import pytest

from marked_cases import assert_marked_lines, assert_pruned_is_whole

CASES = {
    "lmdeploy_layers_enumerated_activations_returned": """\
import torch
from torch import nn


class DecoderLayerLite(nn.Module):
    def __init__(self, idx):
        super().__init__()
        self.idx = idx

    def forward(self, hidden_states, past_key_value, attn_metadata):
        k_cache, v_cache = past_key_value
        k32 = k_cache.float()  # positive: CL001 the layer's whole key cache
        h = hidden_states.float()  # negative: activations (element 0 of what the layer returns)
        return h, k32


class DecoderLite(nn.Module):
    def __init__(self, n):
        super().__init__()
        self.layers = nn.ModuleList(DecoderLayerLite(i) for i in range(n))

    def forward(self, hidden_states, past_key_values, attn_metadata):
        for idx, layer in enumerate(self.layers):
            hidden_states = layer(hidden_states, past_key_values[idx], attn_metadata)[0]
        return hidden_states
""",
    "sglang_getter_tuple_unpacked": """\
import torch


class DualPoolDecodeBackend:
    def __init__(self, model_runner):
        pool = model_runner.token_to_kv_pool
        self._getters = (pool.get_key_buffer, pool.get_value_buffer)
        self.act_dtype = model_runner.dtype

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        get_k, get_v = self._getters
        dense_k = get_k(layer.layer_id).to(self.act_dtype)  # positive: CL001 whole key buffer through the unpacked getter
        locs = forward_batch.out_cache_loc
        rows = get_v(layer.layer_id)[locs].to(self.act_dtype)  # negative: rows gathered first
        scale = layer.k_scale.to(self.act_dtype)  # negative: a scale
        moved = get_v(layer.layer_id).to(q.device)  # negative: a device move
        return dense_k, rows, scale, moved
""",
    "trtllm_getter_dict_items_loop": """\
import torch


class SpecDecodeWorker:
    def __init__(self, target_mgr, draft_mgr, dtype=torch.float16):
        self.readers = {"target": target_mgr.get_buffers, "draft": draft_mgr.get_buffers}
        self.dtype = dtype
        self.num_layers = target_mgr.num_layers

    def forward(self, input_ids, position_ids, attn_metadata, spec_metadata):
        out = []
        for i in range(self.num_layers):
            for kind, read in self.readers.items():
                out.append(read(i).to(self.dtype))  # positive: CL001 a whole layer through the held getter of each manager
        offs = attn_metadata.kv_cache_block_offsets[0, :, 0]
        for kind, read in self.readers.items():
            out.append(read(0)[offs].to(self.dtype))  # negative: blocks picked first
        ids = input_ids.to(torch.int32)  # negative: token ids
        return out, ids
""",
    "vllm_itertools_batched_planes": """\
import itertools

import torch

from vllm.v1.worker.gpu_model_runner import GPUModelRunner


class PlanarKVView:
    def __init__(self, runner):
        self.runner = runner

    def _planes(self):
        return [plane for kv in self.runner.kv_caches for plane in kv.unbind(0)]

    def widened(self, dtype):
        out = []
        for pair in itertools.batched(self._planes(), 2):
            out.append([p.to(dtype) for p in pair])  # positive: CL001 each whole plane, regrouped two by two
        return out

    def picked(self, block_ids, dtype):
        return [[p[block_ids].to(dtype) for p in pair] for pair in itertools.batched(self._planes(), 2)]  # negative: blocks first

    def moved(self, device):
        return [(k.to(device), v.to(device)) for k, v in itertools.batched(self._planes(), 2)]  # negative: a device move


class PlanarModelRunner(GPUModelRunner):
    def execute_model(self, scheduler_output, intermediate_tensors=None):
        self.wide = self.kv_view.widened(torch.float32)
        self.moved = self.kv_view.moved(self.device)
        self.picked = self.kv_view.picked(self.input_batch.block_table[0].get_device_tensor(), torch.float32)
        self.block_ids = self.input_batch.block_table[0].get_device_tensor().to(torch.int64)  # negative: block table
        return super().execute_model(scheduler_output, intermediate_tensors)
""",
    "sglang_more_itertools_chunked": """\
import more_itertools
import torch


class ChunkedCacheExporter:
    def __init__(self, model_runner):
        self.pool = model_runner.token_to_kv_pool

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        bufs = [self.pool.get_key_buffer(layer.layer_id), self.pool.get_value_buffer(layer.layer_id)]
        halves = [[b.to(torch.float16) for b in chunk] for chunk in more_itertools.chunked(bufs, 1)]  # positive: CL001 whole buffers regrouped in chunks
        rows = [[b[forward_batch.out_cache_loc].to(torch.float16) for b in chunk] for chunk in more_itertools.chunked(bufs, 1)]  # negative: rows
        return halves, rows
""",
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_marked_lines(tmp_path, name):
    assert_marked_lines(tmp_path, name, CASES[name])


@pytest.mark.parametrize("name", sorted(CASES))
@pytest.mark.parametrize("filler", [False, True], ids=["as-is", "with-filler"])
def test_pruned_is_whole(tmp_path, name, filler):
    assert_pruned_is_whole(tmp_path, name, CASES[name], filler)
