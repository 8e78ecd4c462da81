"""Issue 19, round 18 (family_recall_16: f5's four false positives, f4's decorator, map and helper misses),
in sglang, vLLM, lmdeploy and TRT-LLM styles other than the corpus's:
- rules/accessors.toml `dtype`: sglang's get_key_buffer / get_value_buffer / get_kv_buffer return the pool's
  `self.dtype` (a store_dtype buffer viewed as it), so `.to(pool.dtype)` of them converts nothing;
- `narrow(0, start, length)` with literal bounds reads as the slice `[start:start + length]` (one block, or a
  plane of a planes-first cache, as the subscript reads it);
- a split into sizes written out along dimension 0: piece k is the slice of the pool it covers
  (`buf.split([64, n - 64])[0]` is `buf[:64]`, the last piece runs to the end);
- `.to(t)` of another tensor with the receiver's own dtype root (`vc.to(kc)` of one cache) converts nothing;
- stacked decorators: an inner layer's wrapper converting its argument is whole when every call of the
  decorated def hands it a whole pool through the outer layers (reported at the wrapper's cast, once);
- `map(self.obj.m, caches)`: a bound method applied to each element binds its parameters;
- the pruner feeds `obj.take(kv)` into a module method named like a tensor method.
Each positive has look-alikes beside it; the pruned analysis gives the whole file's findings, with and
without filler."""

from __future__ import annotations

import pytest

from marked_cases import assert_marked_lines, assert_pruned_is_whole

CASES = {
    "accessor_own_dtype_sglang": """\
import torch


class TritonUpcastBackend:
    def __init__(self, model_runner):
        self.token_to_kv_pool = model_runner.token_to_kv_pool
        self.draft_pool = model_runner.draft_token_to_kv_pool

    def forward_decode(self, q, k, v, layer, forward_batch):
        pool = self.token_to_kv_pool
        same_k = pool.get_key_buffer(layer.layer_id).to(pool.dtype)  # negative: the pool's own dtype
        d = self.token_to_kv_pool.dtype
        same_v = self.token_to_kv_pool.get_value_buffer(layer.layer_id).to(dtype=d)  # negative: own dtype
        kb, vb = pool.get_kv_buffer(layer.layer_id)
        pair = (kb.to(pool.dtype), vb.to(pool.dtype))  # negative: the pool's own dtype
        wide = pool.get_key_buffer(layer.layer_id).to(torch.float32)  # positive: CL001
        other = pool.get_value_buffer(layer.layer_id).to(self.draft_pool.dtype)  # positive: CL001
        return same_k, same_v, pair, wide, other
""",
    "narrow_literal_vllm": """\
import torch


class TorchSDPAImpl:
    def forward(self, layer, query, key, value, kv_cache, attn_metadata, output=None):
        key_cache, value_cache = kv_cache.unbind(0)
        one = key_cache.narrow(0, 7, 1).float()  # negative: one block
        few = torch.narrow(value_cache, 0, 2, 4).to(query.dtype)  # negative: four blocks
        plane = kv_cache.narrow(0, 1, 1).half()  # positive: CL001
        heads = value_cache.narrow(2, 0, 4).to(query.dtype)  # positive: CL001
        return one, few, plane, heads
""",
    "narrow_literal_lmdeploy": """\
import torch


class PagedDecodeImpl:
    def forward(self, query, key, value, k_cache, v_cache, attn_metadata):
        first = k_cache.narrow(0, 0, 2).float()  # negative: two blocks
        later = v_cache.narrow(dim=0, start=5, length=3).half()  # negative: three blocks
        everything = k_cache.narrow(0, 0, k_cache.size(0)).float()  # positive: CL001
        return first, later, everything
""",
    "split_sizes_trtllm": """\
import torch


class MLADecodeTorch:
    def forward(self, q_nope, q_pe, attn_metadata, kv_cache_manager, layer_idx):
        buf = kv_cache_manager.get_buffers(layer_idx)
        lead, rest = torch.split(buf, [16, buf.shape[0] - 16])
        lead16 = lead.to(q_nope.dtype)  # negative: the first 16 pages
        window = buf.split([32, 32, buf.size(0) - 64], dim=0)[1].to(q_nope.dtype)  # negative: pages 32-63
        chunk = buf.split(128)[0].half()  # negative: the first 128 pages
        rope = buf.split([512, 64], dim=-1)[1].to(q_pe.dtype)  # positive: CL001
        tail = rest.to(q_nope.dtype)  # positive: CL001
        return lead16, window, chunk, rope, tail
""",
    "split_sizes_sglang": """\
import torch


class SplitReadBackend:
    def __init__(self, model_runner):
        self.pool = model_runner.token_to_kv_pool

    def forward_extend(self, q, k, v, layer, forward_batch):
        kbuf = self.pool.get_key_buffer(layer.layer_id)
        head = kbuf.split([8, kbuf.shape[0] - 8])[0].float()  # negative: the first 8 slots
        nope, pe = kbuf.split([448, 64], dim=-1)
        wide = nope.float()  # positive: CL001
        return head, wide
""",
    "to_other_tensor_vllm": """\
import torch


class NaiveDecodeImpl:
    def forward(self, layer, query, key, value, kv_cache, attn_metadata, output=None):
        key_cache = kv_cache[0]
        value_cache = kv_cache[1]
        as_key = value_cache.to(key_cache)  # negative: the same cache's dtype
        as_self = key_cache.view(-1, 16).to(key_cache)  # negative: its own dtype
        as_query = value_cache.to(query)  # positive: CL001
        return as_key, as_self, as_query
""",
    "to_other_tensor_sglang": """\
import torch


class PairedReadBackend:
    def __init__(self, model_runner):
        self.pool = model_runner.token_to_kv_pool

    def forward_decode(self, q, k, v, layer, forward_batch):
        kb, vb = self.pool.get_kv_buffer(layer.layer_id)
        same = vb.to(kb)  # negative: one pool's K and V share its dtype
        widened = kb.to(q)  # positive: CL001
        return same, widened
""",
    "stacked_decorators_sglang": """\
import functools

import torch


def widen_arg(dtype):
    def wrap(fn):
        @functools.wraps(fn)
        def run(self, q, buf, *rest):
            return fn(self, q, buf.to(dtype), *rest)  # positive: CL001
        return run
    return wrap


def traced(fn):
    @functools.wraps(fn)
    def run(self, *args, **kwargs):
        self.steps += 1
        return fn(self, *args, **kwargs)
    return run


def upcast_rows(fn):
    @functools.wraps(fn)
    def run(self, q, rows):
        return fn(self, q, rows.float())  # negative: only gathered rows reach it
    return run


class StackedBackend:
    steps = 0

    def __init__(self, model_runner):
        self.pool = model_runner.token_to_kv_pool

    @traced
    @widen_arg(torch.float32)
    def _score(self, q, buf):
        return q @ buf.T

    @traced
    @upcast_rows
    def _score_rows(self, q, rows):
        return q @ rows.T

    def forward_decode(self, q, k, v, layer, forward_batch):
        kbuf = self.pool.get_key_buffer(layer.layer_id)
        whole = self._score(q, kbuf)
        rows = self._score_rows(q, kbuf[forward_batch.out_cache_loc])
        return whole, rows
""",
    "map_bound_method_lmdeploy": """\
import torch


class CacheWidener:
    def __init__(self, dtype):
        self.dtype = dtype

    def widen(self, cache):
        return cache.to(self.dtype)  # positive: CL001

    def widen_blocks(self, cache):
        return cache.float()  # negative: only block rows reach it


class WidenedRunner:
    def __init__(self):
        self.kv_caches = []
        self.widener = CacheWidener(torch.float32)

    def execute_model(self, scheduler_output, intermediate_tensors=None):
        ids = scheduler_output.block_ids
        wide = list(map(self.widener.widen, self.kv_caches))
        rows = list(map(self.widener.widen_blocks, [c[:, ids] for c in self.kv_caches]))
        return wide, rows
""",
    "tensor_named_helper_lmdeploy": """\
import torch


class Snapshotter:
    def take(self, k_cache, v_cache, dtype):
        return k_cache.to(dtype), v_cache.to(dtype)  # positive: CL001

    def narrow_rows(self, cache, offsets, dtype):
        return cache[offsets].to(dtype)  # negative: batch blocks


class SnapshotAttention(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.snap = Snapshotter()

    def forward(self, hidden_states, past_key_value, attn_metadata):
        k_cache, v_cache = past_key_value[0], past_key_value[1]
        both = self.snap.take(k_cache, v_cache, hidden_states.dtype)
        rows = self.snap.narrow_rows(k_cache, attn_metadata.block_offsets, hidden_states.dtype)
        return both, rows
""",
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_marked_lines(tmp_path, name):
    assert_marked_lines(tmp_path, name, CASES[name])


@pytest.mark.parametrize("name", sorted(CASES))
@pytest.mark.parametrize("filler", [False, True], ids=["as-is", "with-filler"])
def test_pruned_is_whole(tmp_path, name, filler):
    assert_pruned_is_whole(tmp_path, name, CASES[name], filler)
