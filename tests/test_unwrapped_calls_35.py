"""Round 35: a decorated def called through `__wrapped__`.

`f.__wrapped__(x)` ([callables] unwrapped_attributes: what `functools.wraps`, `lru_cache` and `cache` leave) is
a call of the def itself, every argument explicit: `self.m.__wrapped__(self, kv)`, `type(self).m.__wrapped__(self,
kv)` and `Cls.m.__wrapped__(self, kv)` bind self to the first parameter (ObjectFlow._unwrapped_targets, and
same_dtype's frame binds self so). The cache the decorator adds is bypassed: the conversion runs on every step.
"""

# ruff: noqa: E501
from __future__ import annotations

import pytest

from marked_cases import assert_marked_lines, assert_pruned_is_whole

CASES = {
    "vllm_lru_cache_self_wrapped": """\
import functools

import torch


class DenseFallbackImpl:
    def __init__(self, num_heads, head_size, dtype):
        self.dtype = dtype

    @functools.lru_cache(maxsize=4)
    def _widened(self, kv_cache):
        return kv_cache.to(self.dtype)  # positive: CL001 the whole layer cache, the cache bypassed

    @functools.lru_cache(maxsize=4)
    def _rows(self, kv_cache, slots):
        return kv_cache[:, slots].to(self.dtype)  # negative: the batch's slots

    def forward(self, layer, query, key, value, kv_cache, attn_metadata, output=None):
        kv = self._widened.__wrapped__(self, kv_cache)
        rows = self._rows.__wrapped__(self, kv_cache, attn_metadata.slot_mapping)
        q = query.to(self.dtype)  # negative: the query
        return self._attend(q, kv, rows, output)
""",
    "sglang_wraps_decorator_module_helper": """\
import functools

import torch


def traced(fn):
    @functools.wraps(fn)
    def inner(*args, **kwargs):
        return fn(*args, **kwargs)

    return inner


@traced
def _as_compute(buf, dtype):
    return buf.to(dtype)  # positive: CL001 the whole key buffer, called through __wrapped__


class TracedDecodeBackend:
    def __init__(self, model_runner):
        self.pool = model_runner.token_to_kv_pool
        self.act_dtype = model_runner.dtype

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        keys = _as_compute.__wrapped__(self.pool.get_key_buffer(layer.layer_id), self.act_dtype)
        vals = self.pool.get_value_buffer(layer.layer_id)[forward_batch.out_cache_loc].to(self.act_dtype)  # negative: rows
        moved = self.pool.get_value_buffer(layer.layer_id).to(q.device)  # negative: a device move
        return keys, vals, moved
""",
    "lmdeploy_cache_module_function": """\
import functools

import torch


@functools.cache
def _dense(k_cache, dtype):
    return k_cache.to(dtype)  # positive: CL001 the whole k cache, through __wrapped__


@functools.cache
def _same(k_cache):
    return k_cache.to(k_cache.dtype)  # negative: its own dtype


class UncachedDecodeAttention:
    def __init__(self, compute_dtype=torch.float16):
        self.compute_dtype = compute_dtype

    def forward(self, query, k_cache, v_cache, attn_metadata):
        k = _dense.__wrapped__(k_cache, self.compute_dtype)
        v = _same.__wrapped__(v_cache)
        return self._attend(query, k, v, attn_metadata)
""",
    "trtllm_class_wrapped_method": """\
import functools

import torch


class VanillaCachedAttention:
    def __init__(self, layer_idx, kv_cache_manager):
        self.layer_idx = layer_idx
        self.mgr = kv_cache_manager

    @functools.lru_cache(maxsize=None)
    def _planes(self, buf):
        return buf.unbind(1)

    @functools.lru_cache(maxsize=None)
    def _upcast(self, buf, dtype):
        return buf.to(dtype)  # positive: CL001 the layer's whole buffer, called through the class's __wrapped__

    def forward(self, q, attn_metadata):
        buf = self.mgr.get_buffers(self.layer_idx)
        wide = VanillaCachedAttention._upcast.__wrapped__(self, buf, torch.float16)
        ids = attn_metadata.block_ids.to(torch.int64)  # negative: block ids
        return self._sdpa(q, wide, ids)
""",
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_marked_lines(tmp_path, name):
    assert_marked_lines(tmp_path, name, CASES[name])


@pytest.mark.parametrize("name", sorted(CASES))
@pytest.mark.parametrize("filler", [False, True], ids=["as-is", "with-filler"])
def test_pruned_is_whole(tmp_path, name, filler):
    assert_pruned_is_whole(tmp_path, name, CASES[name], filler)
