"""Round 24 (family_recall_22 false positives and a wrong code), in sglang, vLLM, lmdeploy and TRT-LLM
styles other than the corpus's:
- attribution: a class that allocates no buffer and only holds an engine's pool (`self.pool =
  token_to_kv_pool`), whose learnt method converts what the held pool's accessor returns, converts for the
  caller that built it (CL001); a manager subclass converting `self.get_buffers(i)` still owns it (CL004);
- positions of a layer entry past its caches (lmdeploy's (k_cache, v_cache, k_scales_zeros,
  v_scales_zeros)) through a starred target (`k, v, *quant = entry`), a slice in a helper the entry is
  passed to (`entry[2:]`), and re-unpacking what a helper returns: scales, not caches;
- the layout of a per-layer cache followed through containers (`OrderedDict(kv_caches)`, `deque(...)`,
  `next(iter(d.values()))`, `max(...)`, `d.popitem()`): a block prefix `c[:, :n]` of vLLM's
  [2, num_blocks, ...] selects blocks;
- a record's fields by name (`rec._asdict().items()`, `vars(rec).items()`, `dataclasses.asdict(rec)`)
  narrowed by a test of the constant field name, as a dict display's keys are.
Each positive has look-alikes beside it; the pruned analysis gives the whole file's findings, with and
without filler."""

from __future__ import annotations

import pytest

from marked_cases import assert_marked_lines, assert_pruned_is_whole

CASES = {
    # -- attribution: a holder of another object's pool is no pool accessor -------------------------------
    "holder_latent_reader_sglang": """\
import torch


class MLAPrefixReader:
    def __init__(self, model_runner):
        self.kv = model_runner.token_to_kv_pool
        self.dtype = model_runner.dtype

    def latent(self, layer):
        return self.kv.get_key_buffer(layer.layer_id).float()  # positive: CL001 the whole latent widened

    def latent_rows(self, layer, loc):
        return self.kv.get_key_buffer(layer.layer_id)[loc].float()  # negative: rows gathered first

    def on_device(self, layer):
        return self.kv.get_key_buffer(layer.layer_id).to("cuda")  # negative: a device move


class Backend:
    def __init__(self, model_runner):
        self.reader = MLAPrefixReader(model_runner)

    def forward_extend(self, q, k, v, layer, forward_batch):
        return self.reader.latent(layer), self.reader.latent_rows(layer, forward_batch.out_cache_loc)
""",
    "holder_vs_owner_manager_trtllm": """\
import torch
from tensorrt_llm._torch.pyexecutor.resource_manager import KVCacheManager


class WideKVCacheManager(KVCacheManager):
    def get_wide_buffers(self, layer_idx):
        return self.get_buffers(layer_idx).to(torch.float32)  # positive: CL004 the manager converts its own layer


class DraftLayerView:
    def __init__(self, kv_cache_manager, dtype):
        self.mgr = kv_cache_manager
        self.dtype = dtype

    def layer(self, layer_idx):
        return self.mgr.get_buffers(layer_idx).to(self.dtype)  # positive: CL001 a held manager's whole layer

    def layer_blocks(self, layer_idx, block_ids):
        return self.mgr.get_buffers(layer_idx)[block_ids].to(self.dtype)  # negative: blocks first


class DraftAttention:
    def __init__(self, kv_cache_manager):
        self.view = DraftLayerView(kv_cache_manager, torch.bfloat16)

    def forward(self, q, k, v, metadata):
        return self.view.layer(0), self.view.layer_blocks(0, metadata.block_ids)
""",
    "holder_pair_reader_sglang": """\
import torch


class KVPairView:
    def __init__(self, token_to_kv_pool, dtype):
        self.pool = token_to_kv_pool
        self.dtype = dtype

    def pair(self, layer_id):
        k, v = self.pool.get_kv_buffer(layer_id)
        return k.to(self.dtype), v.to(self.dtype)  # positive: CL001 the held pool's whole key and value buffers

    def value(self, layer_id):
        return self.pool.get_value_buffer(layer_id).half()  # positive: CL001 the held pool's whole value buffer

    def scales(self, layer_id):
        return self.pool.k_scale.to(self.dtype)  # negative: a scale tensor


class Worker:
    def __init__(self, model_runner):
        self.view = KVPairView(model_runner.token_to_kv_pool, torch.float32)

    def forward_decode(self, q, k, v, layer, forward_batch):
        return self.view.pair(layer.layer_id), self.view.value(layer.layer_id), self.view.scales(layer.layer_id)
""",
    # -- positions of an lmdeploy layer entry past its caches ----------------------------------------------
    "entry_starred_scales_lmdeploy": """\
import torch


class Qwen2Attention(torch.nn.Module):
    def forward(self, hidden_states, rotary_pos_emb, past_key_value, attn_metadata):
        k_cache, v_cache, *scales_zeros = past_key_value
        k_sz = scales_zeros[0].to(hidden_states.dtype)  # negative: the key scales/zeros
        wide = v_cache.to(hidden_states.dtype)  # positive: CL001 the whole value cache
        rows = k_cache[attn_metadata.block_offsets].float()  # negative: blocks first
        return k_sz, wide, rows
""",
    "entry_slice_in_helper_lmdeploy": """\
import torch


def quant_params(entry):
    return entry[2:]


def caches(entry):
    return entry[:2]


class InternLM2Attention(torch.nn.Module):
    def forward(self, hidden_states, rotary_pos_emb, past_key_value, attn_metadata):
        kz, vz = quant_params(past_key_value)
        k_cache, v_cache = caches(past_key_value)
        kz = kz.float()  # negative: scales/zeros sliced off by the helper
        k_cache = k_cache.float()  # positive: CL001 the whole key cache
        return kz, vz.to(torch.float16), k_cache  # negative: the value scales/zeros
""",
    "entry_starred_helper_repacked_lmdeploy": """\
import torch


def split_entry(pkv):
    k, v, *rest = pkv
    return (k, v), rest


class MistralAttention(torch.nn.Module):
    def forward(self, hidden_states, rotary_pos_emb, past_key_value, attn_metadata):
        (k, v), rest = split_entry(past_key_value)
        zeros = rest[1].to(hidden_states.dtype) if rest else None  # negative: the value scales/zeros
        dense = v.to(hidden_states.dtype)  # positive: CL001 the whole value cache
        return zeros, dense
""",
    # -- a cache's layout through containers ---------------------------------------------------------------
    "layout_deque_of_layers_vllm": """\
import collections

import torch


class RingSaver:
    def register_kv_caches(self, kv_caches):
        self.ring = collections.deque(kv_caches.values())

    def wait_for_save(self):
        head = self.ring[0][:, :4].float()  # negative: the first four blocks
        whole = self.ring[0].float()  # positive: CL001 a whole layer
        return head, whole
""",
    "layout_popitem_vllm": """\
import torch


class EvictingConnector:
    def register_kv_caches(self, kv_caches):
        self.caches = dict(kv_caches)

    def start_load_kv(self, forward_context, **kwargs):
        name, layer = self.caches.popitem()
        probe = layer[:, :2].to(torch.float32)  # negative: two blocks
        return name, probe, layer.to(torch.float32)  # positive: CL001 the popped layer, whole
""",
    "layout_max_of_ordered_vllm": """\
from collections import OrderedDict

import torch


class LargestLayerProbe:
    def register_kv_caches(self, kv_caches):
        self.layers = OrderedDict(kv_caches)

    def get_finished(self, finished_req_ids):
        big = max(self.layers.values(), key=lambda t: t.numel())
        sample = big[:, :1].to(torch.float16)  # negative: one block
        moved = big.to("cpu")  # negative: a device move
        return sample, moved, big.half()  # positive: CL001 the largest layer, whole
""",
    # -- a record's fields by name, narrowed by a test of the name -----------------------------------------
    "record_vars_items_in_test_trtllm": """\
import dataclasses

import torch


@dataclasses.dataclass
class LayerBufs:
    kv: torch.Tensor
    kv_scale: torch.Tensor


def to_compute(rec, dtype):
    out = {}
    for name, t in vars(rec).items():
        if name in ("kv",):
            out[name] = t.to(dtype)  # positive: CL001 the whole layer buffer
        else:
            out[name] = t.to(dtype)  # negative: the scale field only
    return out


class Attention:
    def forward(self, q, k, v, metadata):
        mgr = metadata.kv_cache_manager
        rec = LayerBufs(mgr.get_buffers(self.layer_idx), mgr.kv_scale)
        return to_compute(rec, q.dtype)
""",
    "record_asdict_comprehension_sglang": """\
from typing import NamedTuple

import torch


class PoolPlanes(NamedTuple):
    k: torch.Tensor
    v: torch.Tensor
    k_scale: torch.Tensor
    v_scale: torch.Tensor


class TritonBackend:
    def forward_decode(self, q, k, v, layer, forward_batch):
        pool = forward_batch.token_to_kv_pool
        rec = PoolPlanes(
            pool.get_key_buffer(layer.layer_id), pool.get_value_buffer(layer.layer_id), layer.k_scale, layer.v_scale
        )
        scales = {n: t.float() for n, t in rec._asdict().items() if n.endswith("_scale")}  # negative: scales
        planes = {n: t.float() for n, t in rec._asdict().items() if n in ("k", "v")}  # positive: CL001
        return scales, planes
""",
    "record_asdict_continue_lmdeploy": """\
import dataclasses

import torch


@dataclasses.dataclass
class Entry:
    k_cache: torch.Tensor
    v_cache: torch.Tensor
    zeros: torch.Tensor


class Attention(torch.nn.Module):
    def forward(self, hidden_states, past_key_value, attn_metadata):
        entry = Entry(past_key_value[0], past_key_value[1], attn_metadata.zeros)
        out = []
        for name, t in dataclasses.asdict(entry).items():
            if name != "zeros":
                continue
            out.append(t.to(hidden_states.dtype))  # negative: past the continue, only the zeros
        return out, entry.k_cache.to(hidden_states.dtype)  # positive: CL001 the whole key cache
""",
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_marked_lines(tmp_path, name):
    assert_marked_lines(tmp_path, name, CASES[name])


@pytest.mark.parametrize("name", sorted(CASES))
@pytest.mark.parametrize("filler", [False, True], ids=["as-is", "with-filler"])
def test_pruned_is_whole(tmp_path, name, filler):
    assert_pruned_is_whole(tmp_path, name, CASES[name], filler)
