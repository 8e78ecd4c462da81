"""Issue 19, round 22 (family_recall_20), in sglang, vLLM, lmdeploy and TRT-LLM styles other than the corpus's:
- a value obtained through an object's iteration protocol by `next(obj)` ([containers] take_functions): what
  the class's `__iter__` hands out, or each `__next__()` when `__iter__` returns the object itself, as a `for`
  loop over the object already read it;
- `iter(f, sentinel)` ([iteration] call_until): iterating it yields what `f()` returns (a bound method, an own
  method, a closure), so the loop target is a whole layer when f returns one.
Each positive has look-alikes beside it; the pruned analysis gives the whole file's findings, with and
without filler."""

from __future__ import annotations

import pytest

from marked_cases import assert_marked_lines, assert_pruned_is_whole

CASES = {
    "next_cursor_self_iter_sglang": """\
import torch


class LayerWalker:
    def __init__(self, pool, layer_ids):
        self.pool = pool
        self.layer_ids = list(layer_ids)

    def __iter__(self):
        return self

    def __next__(self):
        if not self.layer_ids:
            raise StopIteration
        lid = self.layer_ids.pop(0)
        return self.pool.get_key_buffer(lid)


class TritonAttnBackendShadow:
    def __init__(self, model_runner):
        self.pool = model_runner.token_to_kv_pool
        self.dtype = model_runner.dtype
        self.scale = torch.ones(1, dtype=torch.float32)

    def forward_decode(self, q, k, v, layer, forward_batch):
        walker = LayerWalker(self.pool, [layer.layer_id])
        head = next(walker)
        wide = head.to(self.dtype)  # positive: CL001 whole key layer handed out by __next__
        same = head.to(head.dtype)  # negative: same dtype
        moved = head.to(q.device)  # negative: device only
        rows = next(walker)[forward_batch.out_cache_loc].to(self.dtype)  # negative: rows gathered first
        s = self.scale.to(self.dtype)  # negative: the scale tensor
        return wide, same, moved, rows, s
""",
    "next_plane_cursor_default_vllm": """\
import torch


class CachePlanes:
    def __init__(self, kv_cache):
        self.kv_cache = kv_cache
        self.which = 0

    def __iter__(self):
        return self

    def __next__(self):
        if self.which > 1:
            raise StopIteration
        self.which += 1
        return self.kv_cache[0] if self.which == 1 else self.kv_cache[1]


class TorchSDPAImplShadow:
    def __init__(self, num_heads):
        self.num_heads = num_heads
        self.dense = torch.zeros(4, 4).to(torch.float16)  # negative: setup-time cast in __init__

    def forward(self, layer, query, key, value, kv_cache, attn_metadata, output=None):
        planes = CachePlanes(kv_cache)
        key_plane = next(planes, None)
        k = key_plane.to(query.dtype)  # positive: CL001 whole key plane of every block
        picked = next(planes)[attn_metadata.block_table].to(query.dtype)  # negative: blocks indexed first
        fresh = key.to(query.dtype)  # negative: the step's new keys
        return k, picked, fresh
""",
    "next_cursor_lmdeploy": """\
import torch


class BlockCursor:
    def __init__(self, caches):
        self._caches = caches
        self._i = 0

    def __iter__(self):
        return self

    def __next__(self):
        k_cache, v_cache = self._caches[self._i]
        self._i += 1
        return v_cache


class PagedAttentionDequant(torch.nn.Module):
    def __init__(self, cache_engine, compute_dtype=torch.float16):
        super().__init__()
        self.cache_engine = cache_engine
        self.compute_dtype = compute_dtype

    def forward(self, query, key, value, attn_metadata):
        cursor = BlockCursor(self.cache_engine.gpu_cache)
        v_cache = next(cursor)
        v = v_cache.half()  # positive: CL001 whole value cache of the layer
        tail = v_cache[attn_metadata.block_offsets].half()  # negative: blocks gathered first
        q = query.to(self.compute_dtype)  # negative: the query
        return v, tail, q
""",
    "iter_sentinel_bound_method_trtllm": """\
import torch


class LayerPuller:
    def __init__(self, kv_cache_manager, layer_ids):
        self.mgr = kv_cache_manager
        self.todo = list(layer_ids)

    def pull(self):
        return self.mgr.get_buffers(self.todo.pop()) if self.todo else None

    def pull_rows(self, block_ids):
        return self.mgr.get_buffers(self.todo.pop())[block_ids] if self.todo else None


class DisaggSenderShadow:
    def __init__(self, dtype=torch.bfloat16):
        self.dtype = dtype

    def _forward_step(self, scheduled_requests, kv_cache_manager, layer_ids):
        puller = LayerPuller(kv_cache_manager, layer_ids)
        out = [buf.to(self.dtype) for buf in iter(puller.pull, None)]  # positive: CL001 whole layers pulled
        ids = scheduled_requests.block_ids
        rows = [r.to(self.dtype) for r in iter(lambda: puller.pull_rows(ids), None)]  # negative: rows first
        moved = [b.to("cuda") for b in iter(puller.pull, None)]  # negative: device only
        return out, rows, moved
""",
    "iter_sentinel_own_method_sglang": """\
import torch


class HostOffloadStager:
    def __init__(self, token_to_kv_pool, layer_num):
        self.token_to_kv_pool = token_to_kv_pool
        self.pending = list(range(layer_num))
        self.dtype = torch.float16

    def _next_value_layer(self):
        if not self.pending:
            return None
        return self.token_to_kv_pool.get_value_buffer(self.pending.pop(0))

    def _next_id(self):
        return self.pending.pop(0) if self.pending else None

    def stage(self, forward_batch):
        staged = []
        for buf in iter(self._next_value_layer, None):
            staged.append(buf.to(self.dtype))  # positive: CL001 whole value layers until None
        for lid in iter(self._next_id, None):
            staged.append(torch.tensor(lid).to(self.dtype))  # negative: a layer id, not a buffer
        return staged
""",
    "iter_sentinel_closure_vllm": """\
import torch


class KVConnectorSaverShadow:
    def __init__(self, kv_caches, dtype=torch.bfloat16):
        self.kv_caches = kv_caches
        self.dtype = dtype

    def save_kv_layers(self, names, attn_metadata):
        queue = list(names)

        def take():
            return self.kv_caches[queue.pop()] if queue else None

        saved = [kv.to(self.dtype) for kv in iter(take, None)]  # positive: CL001 whole per-layer caches
        sel = [kv[attn_metadata.slot_mapping].to(self.dtype) for kv in iter(take, None)]  # negative: slots first
        return saved, sel
""",
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_marked_lines(tmp_path, name):
    assert_marked_lines(tmp_path, name, CASES[name])


@pytest.mark.parametrize("filler", [False, True])
@pytest.mark.parametrize("name", sorted(CASES))
def test_pruned_is_whole(tmp_path, name, filler):
    assert_pruned_is_whole(tmp_path, name, CASES[name], filler)
