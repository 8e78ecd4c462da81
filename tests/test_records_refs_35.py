"""Round 35: methods bound by partial from their class, and objects reached through weak references in containers.

`functools.partial(Base.m, self)` stored on the instance installs Base's own def of m (found in Base's MRO) as a
method of the class, called with self first (ObjectFlow._bound_to_self). `weakref.ref(x)` kept in a list or
comprehension and called where a loop, a zip position or an index takes it (`for ref, dst in zip(self.refs,
bufs): ref()`, `self.refs[i]()`) is x (ObjectFlow.wrapped_value); a zip (rules [iteration] pairs) target at a
position is an element of that argument whatever the others hold.
"""

# ruff: noqa: E501
from __future__ import annotations

import pytest

from marked_cases import assert_marked_lines, assert_pruned_is_whole

CASES = {
    "vllm_partial": """\
import functools

import torch


class DrafterBase:
    def __init__(self, runner, dtype):
        self.runner = runner
        self.dtype = dtype

    def _dense(self, cache):
        return cache.to(self.dtype)  # positive: CL001 a whole layer cache handed to the unbound base method

    def _blocks(self, cache, block_ids):
        return cache[:, block_ids].to(self.dtype)  # negative: blocks picked first


class TreeDrafter(DrafterBase):
    def __init__(self, runner, dtype):
        super().__init__(runner, dtype)
        self._read = functools.partial(DrafterBase._dense, self)
        self._pick = functools.partial(DrafterBase._blocks, self)

    def propose(self, hidden, block_ids):
        kv = [self._read(c) for c in self.runner.kv_caches]
        rows = self._pick(self.runner.kv_caches[0], block_ids)
        h = hidden.to(self.dtype)  # negative: hidden states
        return kv, rows, h
""",
    "sglang_weakref_zip": """\
import weakref

import torch


class StaticArenaRunner:
    def __init__(self, model_runner):
        self.pool = model_runner.token_to_kv_pool
        self.model_dtype = model_runner.dtype
        self.refs = [weakref.ref(buf) for buf in self.pool.kv_buffer]
        self.static_kv = []

    def capture(self, bs):
        for ref in self.refs:
            arena = ref()
            self.static_kv.append(torch.empty(arena.shape, dtype=self.model_dtype, device=arena.device))  # negative: allocation

    def replay(self, forward_batch):
        for ref, dst in zip(self.refs, self.static_kv):
            arena = ref()
            dst.copy_(arena.to(self.model_dtype))  # positive: CL001 the whole per-layer arena, through the dereferenced weakref
        loc = forward_batch.out_cache_loc
        rows = self.refs[0]()[loc].to(self.model_dtype)  # negative: rows of the batch
        return rows
""",
    "trtllm_weakref_index": """\
import weakref

import torch


class DraftLayerCache:
    def __init__(self, kv_cache_manager, num_layers, dtype):
        self.refs = [weakref.ref(kv_cache_manager.get_buffers(i)) for i in range(num_layers)]
        self.dtype = dtype

    def forward(self, attn_metadata, layer_idx):
        whole = self.refs[layer_idx]().to(self.dtype)  # positive: CL001 a whole layer pool through the indexed weakref
        offs = attn_metadata.kv_cache_block_offsets[0, :, 0]
        picked = self.refs[layer_idx]()[offs].to(self.dtype)  # negative: the batch's blocks
        same = self.refs[0]().to("cuda")  # negative: a device move
        return whole, picked, same
""",
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_marked_lines(tmp_path, name):
    assert_marked_lines(tmp_path, name, CASES[name])


@pytest.mark.parametrize("name", sorted(CASES))
@pytest.mark.parametrize("filler", [False, True], ids=["as-is", "with-filler"])
def test_pruned_is_whole(tmp_path, name, filler):
    assert_pruned_is_whole(tmp_path, name, CASES[name], filler)
