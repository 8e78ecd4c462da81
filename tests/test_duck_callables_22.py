"""Issue 19, round 22 (family_recall_20), in sglang, vLLM and TRT-LLM styles other than the corpus's: an object of
unknown class called (`self.fetch(i)`, `getter(name)`: a parameter nobody in the module fills, or an attribute
stored from one) is the one class of the module defining `__call__` ([callables] duck_protocol), when the call's
positional arguments fit that `__call__`; what it returns is what the call gives. The pruner collects the defs
that call a held object once that class is collected. Each positive has look-alikes beside it (a gather first,
a `.to(device)`, a call whose arguments do not fit, a value made by a call); the pruned analysis gives the whole
file's findings, with and without filler."""

from __future__ import annotations

import pytest

from marked_cases import assert_marked_lines, assert_pruned_is_whole

CASES = {
    "held_getter_attribute_sglang": """\
import torch


class PoolKeyGetter:
    def __init__(self, token_to_kv_pool):
        self.token_to_kv_pool = token_to_kv_pool

    def __call__(self, layer_id):
        return self.token_to_kv_pool.get_key_buffer(layer_id)


class TorchNativeBackendShadow:
    def __init__(self, key_getter, rotary, dtype=torch.bfloat16):
        self.key_getter = key_getter
        self.rotary = rotary
        self.dtype = dtype

    def forward_decode(self, q, k, v, layer, forward_batch):
        k_buf = self.key_getter(layer.layer_id)
        wide = k_buf.to(self.dtype)  # positive: CL001 whole key layer the getter object returns
        rows = self.key_getter(layer.layer_id)[forward_batch.out_cache_loc].to(self.dtype)  # negative: rows first
        moved = k_buf.to(q.device)  # negative: device only
        q_rot = self.rotary(q, k).to(self.dtype)  # negative: two arguments, not the getter's one
        return wide, rows, moved, q_rot
""",
    "held_reader_parameter_vllm": """\
import torch


class LayerCacheReader:
    def __init__(self, kv_caches):
        self.kv_caches = kv_caches

    def __call__(self, idx):
        return self.kv_caches[idx]


def dequant_layer(read, idx, query, slot_mapping):
    kv_cache = read(idx)
    dense = kv_cache.to(query.dtype)  # positive: CL001 the whole layer cache the reader returns
    picked = kv_cache[:, slot_mapping].to(query.dtype)  # negative: slots selected first
    fresh = query.to(torch.float32)  # negative: the query
    return dense, picked, fresh
""",
    "held_fetcher_trtllm": """\
import torch


class LayerBufferFetcher:
    def __init__(self, kv_cache_manager):
        self.kv_cache_manager = kv_cache_manager

    def __call__(self, layer_idx, *rest):
        return self.kv_cache_manager.get_buffers(layer_idx)


class TrtllmAttentionShadow:
    def __init__(self, layer_idx, fetch, dtype=torch.float16):
        self.layer_idx = layer_idx
        self.fetch = fetch
        self.dtype = dtype
        self.table = torch.zeros(8).to(torch.float16)  # negative: setup-time cast in __init__

    def forward(self, q, k, v, metadata):
        buf = self.fetch(self.layer_idx)
        full = buf.to(self.dtype)  # positive: CL001 the whole layer buffer of the held fetcher
        blocks = buf[metadata.block_ids].to(self.dtype)  # negative: blocks gathered first
        same = buf.to(buf.dtype)  # negative: same dtype
        return full, blocks, same
""",
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_marked_lines(tmp_path, name):
    assert_marked_lines(tmp_path, name, CASES[name])


@pytest.mark.parametrize("filler", [False, True])
@pytest.mark.parametrize("name", sorted(CASES))
def test_pruned_is_whole(tmp_path, name, filler):
    assert_pruned_is_whole(tmp_path, name, CASES[name], filler)
