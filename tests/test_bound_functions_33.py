"""Round 33 (issue 19: functions bound as methods), in sglang, vLLM, lmdeploy and TensorRT-LLM styles other than
the blind corpora's: a module def a method binds to its own instance and stores on it
(`self.n = types.MethodType(f, self)`, `functools.partial(f, self)`, `setattr(self, "n",
...)`, f a def or a local name holding one of several defs): `self.n(kv)` runs f with self the instance and kv
its next argument, as a class body's `n = f` does; the cast in f is reported there, in the whole and the
pruned analysis alike. Each positive has look-alikes beside it (blocks gathered first, a scale, the query)."""

# ruff: noqa: E501
from __future__ import annotations

import pytest

from marked_cases import assert_marked_lines, assert_pruned_is_whole, check

CASES = {
    "methodtype_conditional_vllm": """\
import types

import torch


def _dense_keys(self, kv_cache):
    return kv_cache[0].to(self.act_dtype)  # positive: CL001 every block of the layer's keys


def _keep_keys(self, kv_cache):
    return kv_cache[0]


class XPUFlashImpl:
    def __init__(self, num_heads, kv_cache_dtype, act_dtype=torch.bfloat16):
        self.act_dtype = act_dtype
        chosen = _dense_keys if kv_cache_dtype.startswith("fp8") else _keep_keys
        self._keys = types.MethodType(chosen, self)

    def forward(self, layer, query, key, value, kv_cache, attn_metadata, output=None):
        keys = self._keys(kv_cache)
        rows = kv_cache[0][attn_metadata.block_table[0]].to(self.act_dtype)  # negative: blocks first
        q = query.to(self.act_dtype)  # negative: the query
        return keys, rows, q
""",
    "partial_self_sglang": """\
import functools

import torch


def _widen_layer(self, k_buffer, scale):
    s = scale.to(self.dtype)  # negative: a scale
    return k_buffer.to(self.dtype) * s  # positive: CL001 every slot of the layer


class HipDecodeBackend:
    def __init__(self, model_runner):
        self.dtype = model_runner.dtype
        self.widen = functools.partial(_widen_layer, self)

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        k_buffer = forward_batch.token_to_kv_pool.get_key_buffer(layer.layer_id)
        dense = self.widen(k_buffer, layer.k_scale)
        rows = k_buffer[forward_batch.out_cache_loc].to(self.dtype)  # negative: rows first
        return dense, rows
""",
    "setattr_methodtype_trtllm": """\
import types

import torch


def _dequant_all(self, buf):
    return buf.to(torch.bfloat16)  # positive: CL001 every block of the layer


class FP8GenerationRunner:
    def __init__(self, manager, layer_idx):
        self.manager, self.layer_idx = manager, layer_idx
        setattr(self, "dequant", types.MethodType(_dequant_all, self))

    def forward(self, q, metadata):
        buf = self.manager.get_buffers(self.layer_idx)
        dense = self.dequant(buf)
        ids = metadata.kv_cache_block_offsets[0].flatten()
        picked = buf[ids].to(torch.bfloat16)  # negative: blocks gathered first
        moved = buf.to(q.device)  # negative: a device move
        return dense, picked, moved
""",
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_marked_lines(tmp_path, name):
    assert_marked_lines(tmp_path, name, CASES[name])


@pytest.mark.parametrize("name", sorted(CASES))
@pytest.mark.parametrize("filler", [False, True], ids=["as-is", "with-filler"])
def test_pruned_is_whole(tmp_path, name, filler):
    assert_pruned_is_whole(tmp_path, name, CASES[name], filler)


# a def bound to another object, given blocks gathered first: nothing to report, whole or pruned
BOUND_ELSEWHERE = """\
import types

import torch


def _widen(self, k_cache):
    return k_cache.to(torch.float16)


class Holder:
    pass


class MacaDecode:
    def __init__(self, helper):
        self.helper = helper
        self.widen = types.MethodType(_widen, helper)

    def forward(self, query, k_cache, attn_metadata):
        blocks = attn_metadata.block_offsets.flatten()
        k = self.widen(k_cache[blocks])
        return k
"""


def test_bound_to_another_object_gathers_first(tmp_path):
    path = tmp_path / "bound_elsewhere.py"
    path.write_text(BOUND_ELSEWHERE)
    assert check(path, False) == [] == check(path, True)
