"""Round 28 (family_recall_26, helper r28a): scale tensors beside whole caches, in sglang, vLLM, lmdeploy and
TRT-LLM styles other than the corpus's:
- a walk over a record's fields by name (`for f in dataclasses.fields(rec)`, `for n in Rec._fields`,
  `Rec.__dataclass_fields__`) read with `getattr(rec, <name>)` under a test of that name: only the fields
  whose name passes the test (the round-20 key tests, now on field walks and on dotted names `f.name`);
- a constant key of an element of a list built of keyword dicts (a TypedDict's `Entry(k=..., k_scale=...)`,
  `dict(key=..., scale=...)`) in a comprehension or by appends: that key's values only;
- a one-dimensional allocation sized by one axis picked from a shape (`torch.ones(shape[2])`,
  `torch.zeros(k.shape[0])`, `torch.empty(k.size(1))`): scales or zeros, not a pool;
- a method whose every caller runs at setup: calls on a held helper object (`self.widener.widen_all()` in
  an engine's `build_model`) count as callers beside `self.m()` calls, and model loading, memory and graph
  set-up hooks ([hot_path] setup: `load_model`, `init_cuda_graphs`, `build_model`, ...) are setup.
Each positive has look-alikes beside it; the pruned analysis gives the whole file's findings, with and
without filler."""

from __future__ import annotations

import pytest

from marked_cases import assert_marked_lines, assert_pruned_is_whole

CASES = {
    "fields_walk_not_endswith_sglang": """\
import dataclasses

import torch


@dataclasses.dataclass
class LayerSlot:
    k_cache: torch.Tensor
    v_cache: torch.Tensor
    k_scale: torch.Tensor


class DebugBackend:
    def forward_decode(self, q, k, v, layer, forward_batch):
        pool = forward_batch.token_to_kv_pool
        slot = LayerSlot(pool.get_key_buffer(layer.layer_id), pool.get_value_buffer(layer.layer_id), layer.k_scale)
        out = []
        for f in dataclasses.fields(slot):
            if not f.name.endswith("cache"):
                out.append(getattr(slot, f.name).float())  # negative: only the scale field
            else:
                out.append(getattr(slot, f.name).float())  # positive: CL001 the key/value caches
        head = q.float()  # negative: the query
        return out, head
""",
    "namedtuple_fields_in_tuple_vllm": """\
from typing import NamedTuple

import torch


class Planes(NamedTuple):
    key: torch.Tensor
    value: torch.Tensor
    scale: torch.Tensor


class ReferenceImpl:
    def forward(self, layer, query, key, value, kv_cache, attn_metadata):
        planes = Planes(kv_cache[0], kv_cache[1], layer._k_scale)
        wide = {}
        for n in Planes._fields:
            t = getattr(planes, n)
            if n in ("key", "value"):
                wide[n] = t.to(query.dtype)  # positive: CL001 a whole plane of every block
            elif n == "scale":
                wide[n] = t.to(query.dtype)  # negative: the scale
        rows = kv_cache[0][attn_metadata.slot_mapping].to(query.dtype)  # negative: rows gathered first
        return wide, rows
""",
    "dataclass_fields_continue_trtllm": """\
from dataclasses import dataclass

import torch


@dataclass
class PoolView:
    kv: torch.Tensor
    kv_scale_orig_quant: torch.Tensor


class DenseReference:
    def __init__(self, layer_idx):
        self.layer_idx = layer_idx

    def forward(self, q, k, v, metadata):
        mgr = metadata.kv_cache_manager
        view = PoolView(mgr.get_buffers(self.layer_idx), mgr.kv_scale_orig_quant)
        dense = {}
        for name in PoolView.__dataclass_fields__:
            if "scale" in name:
                continue
            dense[name] = getattr(view, name).float()  # positive: CL001 past the continue, the pool
        for name in PoolView.__dataclass_fields__:
            if "scale" not in name:
                continue
            dense[name] = getattr(view, name).float()  # negative: past the continue, only the scale
        k = k.to(torch.float32, copy=False)  # negative: the step's new keys
        return dense, k
""",
    "typeddict_entries_comprehension_vllm": """\
from typing import TypedDict

import torch


class LayerEntry(TypedDict):
    key_cache: torch.Tensor
    value_cache: torch.Tensor
    k_scale: torch.Tensor


class WideningImpl:
    def forward(self, layer, query, key, value, kv_cache, attn_metadata):
        entries = [LayerEntry(key_cache=kv_cache[0], value_cache=kv_cache[1], k_scale=s) for s in (layer._k_scale,)]
        out = []
        for e in entries:
            kc = e["key_cache"].to(query.dtype)  # positive: CL001 every block of the key plane
            ks = e["k_scale"].to(query.dtype)  # negative: the scale entry
            out.append((kc, ks))
        return out
""",
    "dict_entries_appended_sglang": """\
import torch


class ExportBackend:
    def forward_extend(self, q, k, v, layer, forward_batch):
        pool = forward_batch.token_to_kv_pool
        entries = []
        for lid in (layer.layer_id,):
            entries.append(dict(k=pool.get_key_buffer(lid), scale=pool.k_scales[lid]))
        out = []
        for e in entries:
            out.append(e["k"].to(torch.bfloat16))  # positive: CL001 the whole key buffer
            out.append(e["scale"].to(torch.bfloat16))  # negative: the scale entry
            out.append(e["k"].to("cuda"))  # negative: a move
        return out
""",
    "typeddict_entries_indexed_trtllm": """\
from typing import TypedDict

import torch


class Planes(TypedDict):
    kv: torch.Tensor
    scale: torch.Tensor


class RefAttention:
    def __init__(self, layer_idx):
        self.layer_idx = layer_idx

    def forward(self, q, k, v, metadata):
        mgr = metadata.kv_cache_manager
        entries = [Planes(kv=mgr.get_buffers(i), scale=mgr.get_scales(i)) for i in (self.layer_idx,)]
        first = entries[0]
        wide = first["kv"].float()  # positive: CL001 the layer's every block
        s = first["scale"].float()  # negative: the scale
        return wide, s
""",
    "one_axis_scales_engine_lmdeploy": """\
import torch


class NpuCacheEngine:
    def __init__(self, cache_config, model_config, num_layers, device="npu"):
        self.kv_dtype = torch.int8
        shape = (cache_config.num_gpu_blocks, cache_config.block_size, model_config.num_key_value_heads, 128)
        self.gpu_cache = [torch.empty(shape, dtype=self.kv_dtype, device=device) for _ in range(num_layers)]
        self.k_zeros = [torch.zeros(shape[2], device=device) for _ in range(num_layers)]
        self.block_scales = [torch.ones(shape[0], device=device) for _ in range(num_layers)]

    def layer_cache(self, idx):
        return self.gpu_cache[idx].to(torch.float16)  # positive: CL004 the whole layer widened

    def layer_zeros(self, idx):
        return self.k_zeros[idx].to(torch.float16)  # negative: one number per head

    def block_scale(self, idx):
        return self.block_scales[idx].to(torch.float16)  # negative: one number per block
""",
    "one_axis_negative_position_sglang": """\
import torch


class ScaledTokenPool:
    def __init__(self, size, head_num, head_dim, layer_num, device):
        buf_shape = (size + 1, head_num, head_dim)
        self.k_buffer = [torch.zeros(buf_shape, dtype=torch.uint8, device=device) for _ in range(layer_num)]
        self.k_scales = [torch.ones(buf_shape[-2], device=device) for _ in range(layer_num)]

    def get_key_buffer(self, layer_id):
        return self.k_buffer[layer_id].to(torch.bfloat16)  # positive: CL004 the whole layer widened

    def get_key_scale(self, layer_id):
        return self.k_scales[layer_id].to(torch.bfloat16)  # negative: one scale per head
""",
    "one_axis_size_method_vllm": """\
import torch


class PerLayerCache:
    def __init__(self, num_blocks, block_size, num_heads, head_size, num_layers):
        self.kv = [
            torch.empty((2, num_blocks, block_size, num_heads, head_size), dtype=torch.uint8) for _ in range(num_layers)
        ]
        self.scales = [torch.ones(self.kv[0].size(3)) for _ in range(num_layers)]

    def layer(self, i):
        return self.kv[i].to(torch.float16)  # positive: CL004 every block of the layer

    def layer_scale(self, i):
        return self.scales[i].to(torch.float16)  # negative: one number per head
""",
    "helper_object_called_from_build_lmdeploy": """\
import torch


class StageWidener:
    def __init__(self, cache_engine):
        self.cache_engine = cache_engine

    def widen_all(self):
        return [k.half() for k, _ in self.cache_engine.gpu_cache]  # negative: only the engine's build_model calls it

    def widen_step(self):
        return [k.half() for k, _ in self.cache_engine.gpu_cache]  # positive: CL001 called from the step


class StageAgent:
    def __init__(self, cache_engine):
        self.cache_engine = cache_engine
        self.widener = StageWidener(cache_engine)

    def build_model(self):
        self.primed = self.widener.widen_all()

    def _async_model_forward(self, inputs, swap_in_map, swap_out_map):
        past = self.widener.widen_step()
        rows = self.cache_engine.gpu_cache[0][0][inputs.block_offsets].half()  # negative: rows gathered first
        return past, rows
""",
    "self_call_from_load_model_vllm": """\
import torch


class GPUModelRunnerLite:
    def __init__(self, vllm_config, device):
        self.device = device
        self.kv_caches = []

    def _prime(self):
        return [c.to(torch.float16) for c in self.kv_caches]  # negative: only load_model calls it

    def load_model(self):
        self.primed = self._prime()

    def _densify(self):
        return [c.to(torch.float16) for c in self.kv_caches]  # positive: CL001 every step

    def execute_model(self, scheduler_output, intermediate_tensors=None):
        dense = self._densify()
        moved = [c.to(self.device) for c in self.kv_caches]  # negative: a move
        return dense, moved
""",
    "helper_object_from_init_cuda_graphs_sglang": """\
import torch


class PoolToucher:
    def __init__(self, pool):
        self.pool = pool

    def touch(self):
        return self.pool.get_key_buffer(0).to(torch.bfloat16)  # negative: graphs are set up once


class ModelRunnerLite:
    def __init__(self, token_to_kv_pool):
        self.token_to_kv_pool = token_to_kv_pool
        self.toucher = PoolToucher(token_to_kv_pool)

    def init_cuda_graphs(self):
        self.warm = self.toucher.touch()

    def forward_decode(self, forward_batch):
        k = self.token_to_kv_pool.get_key_buffer(0).to(torch.bfloat16)  # positive: CL001 every decode step
        return k
""",
    "helper_object_called_from_step_too_trtllm": """\
import torch


class LayerDensifier:
    def __init__(self, mgr, layer_idx):
        self.mgr = mgr
        self.layer_idx = layer_idx

    def dense(self):
        return self.mgr.get_buffers(self.layer_idx).float()  # positive: CL001 the step calls it as well


class RefBackend:
    def __init__(self, mgr, layer_idx):
        self.densifier = LayerDensifier(mgr, layer_idx)

    def warmup(self):
        self.densifier.dense()

    def forward(self, q, k, v, metadata):
        return self.densifier.dense(), q.float()  # negative: the query
""",
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_marked_lines(tmp_path, name):
    assert_marked_lines(tmp_path, name, CASES[name])


@pytest.mark.parametrize("name", sorted(CASES))
@pytest.mark.parametrize("filler", [False, True], ids=["as-is", "with-filler"])
def test_pruned_is_whole(tmp_path, name, filler):
    assert_pruned_is_whole(tmp_path, name, CASES[name], filler)
