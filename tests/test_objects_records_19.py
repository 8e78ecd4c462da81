"""Issue 19, round 19 (family_recall_17: strategy objects, attribute getters, records), in sglang, vLLM,
lmdeploy and TRT-LLM styles other than the corpus's:
- a method call on an attribute whose assignments construct several classes (a conditional expression,
  if/else branches) runs each class's method (the classes' nearest common base, and the overrides of the
  classes constructed), whose parameters take the call's arguments; an override's `super().m(kv_cache, ...)`
  hands the base the cache with its layout, and its return;
- `attrgetter("a.b")(x)` (module global, class attribute, local, `from operator import`) is `x.a.b`, also as
  an accessor's receiver (`mgr.get_buffers(i)` of the TRT-LLM manager), beside itemgetter/methodcaller;
- a list field of a record held by another object (`self.caches.keys.append(k)`, `rec.planes.extend(...)`,
  `.insert(0, v)`, a dataclass `field(default_factory=list)` or a plain `self.keys = []`) holds what is
  stored into it; a sibling field of scales, inputs or gathered rows stays what it holds.
Each positive has look-alikes beside it; the pruned analysis gives the whole file's findings, with and
without filler."""

from __future__ import annotations

import pytest

from marked_cases import assert_marked_lines, assert_pruned_is_whole

CASES = {
    "strategy_if_else_super_sglang": """\
import torch


class BufferReader:
    def read(self, pool, layer_id, dtype):
        return pool.get_key_buffer(layer_id)

    def rows(self, pool, layer_id, locs, dtype):
        return pool.get_key_buffer(layer_id)[locs]


class UpcastReader(BufferReader):
    def read(self, pool, layer_id, dtype):
        return super().read(pool, layer_id, dtype).to(dtype)  # positive: CL001

    def rows(self, pool, layer_id, locs, dtype):
        return super().rows(pool, layer_id, locs, dtype).to(dtype)  # negative: gathered rows


class StrategyBackend:
    def __init__(self, model_runner):
        self.pool = model_runner.token_to_kv_pool
        if model_runner.kv_cache_dtype == "auto":
            self.reader = BufferReader()
        else:
            self.reader = UpcastReader()

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        kb = self.reader.read(self.pool, layer.layer_id, q.dtype)
        rows = self.reader.rows(self.pool, layer.layer_id, forward_batch.out_cache_loc, q.dtype)
        return kb, rows
""",
    "strategy_conditional_gather_first_lmdeploy": """\
import torch


class GatherFirst:
    def fetch(self, k_cache, block_offsets, dtype):
        return k_cache[block_offsets]


class GatherThenWiden(GatherFirst):
    def fetch(self, k_cache, block_offsets, dtype):
        rows = super().fetch(k_cache, block_offsets, dtype)
        return rows.to(dtype)  # negative: every strategy gathers first


class PassThrough:
    def fetch(self, k_cache, block_offsets, dtype):
        return k_cache


class WholeWiden(PassThrough):
    def fetch(self, k_cache, block_offsets, dtype):
        return k_cache.float()  # some callers pass the query: reported at the cache's caller


class RefAttention:
    def __init__(self, quant):
        self.gather = GatherThenWiden() if quant else GatherFirst()
        self.whole = PassThrough() if not quant else WholeWiden()

    def forward(self, query, key, value, past_key_value, attn_metadata, k_scales_zeros=None):
        k_cache, v_cache = past_key_value
        rows = self.gather.fetch(k_cache, attn_metadata.block_offsets, query.dtype)
        full = self.whole.fetch(v_cache, attn_metadata.block_offsets, query.dtype)  # positive: CL001
        q = self.whole.fetch(query, attn_metadata.block_offsets, query.dtype)  # negative: the query
        return rows, full, q
""",
    "getters_module_class_instance_sglang": """\
from operator import attrgetter, itemgetter, methodcaller

import torch

_pool_of = attrgetter("model_runner.token_to_kv_pool")
_lens_of = attrgetter("forward_batch.seq_lens")


class KVProbe:
    first = itemgetter(0)

    def __init__(self, worker):
        self.worker = worker
        self.read_k = methodcaller("get_key_buffer", 0)

    def on_step(self, q):
        pool = _pool_of(self.worker)
        kb = pool.get_value_buffer(3).float()  # positive: CL001
        lens = _lens_of(self.worker).to(torch.int64)  # negative: sequence lengths
        kb0 = self.read_k(pool).half()  # positive: CL001
        pair = pool.get_kv_buffer(1)
        k1 = self.first(pair).bfloat16()  # positive: CL001
        qf = self.first((q, q)).float()  # negative: the query
        head = pool.get_value_buffer(2)[:16].float()  # negative: sixteen slots
        return kb, lens, kb0, k1, qf, head
""",
    "attrgetter_local_manager_trtllm": """\
import operator

import torch


def dump_layers(executor, layers, dtype):
    find = operator.attrgetter("model_engine.kv_cache_manager")
    mgr = find(executor)
    out = []
    for idx in layers:
        out.append(mgr.get_buffers(idx).to(dtype))  # positive: CL001
    return out


def dump_rows(executor, layers, rows, dtype):
    find = operator.attrgetter("model_engine.kv_cache_manager")
    mgr = find(executor)
    return [mgr.get_buffers(i)[rows].to(dtype) for i in layers]  # negative: gathered rows


def dump_inputs(executor, dtype):
    find = operator.attrgetter("model_engine.input_ids")
    return find(executor).to(dtype)  # negative: batch input ids
""",
    "record_local_extend_vllm": """\
import torch


class CacheRecord:
    def __init__(self):
        self.planes = []
        self.scales = []
        self.rows = []


class ReferenceRunner:
    def __init__(self, kv_caches, block_ids):
        rec = CacheRecord()
        for kv_cache in kv_caches:
            rec.planes.extend([kv_cache[0], kv_cache[1]])
            rec.scales.append(torch.ones(1))
            rec.rows.append(kv_cache[:, block_ids])
        self.record = rec

    def execute_model(self, query):
        widened = [p.to(query.dtype) for p in self.record.planes]  # positive: CL001
        scales = [s.float() for s in self.record.scales]  # negative: scales
        rows = [r.to(query.dtype) for r in self.record.rows]  # negative: gathered blocks
        return widened, scales, rows
""",
    "record_dataclass_insert_lmdeploy": """\
from dataclasses import dataclass, field
from typing import List

import torch


@dataclass
class StepBuffers:
    caches: List[torch.Tensor] = field(default_factory=list)
    inputs: List[torch.Tensor] = field(default_factory=list)


class RefStep:
    def __init__(self, cache_engine):
        self.bufs = StepBuffers()
        for k_cache, v_cache in cache_engine.gpu_cache:
            self.bufs.caches.insert(0, v_cache)

    def add_inputs(self, input_ids):
        self.bufs.inputs.append(input_ids)

    def step(self, step_ctx):
        for i, cache in enumerate(self.bufs.caches):
            step_ctx.kv_caches[i] = cache.half()  # positive: CL001
        ids = [t.long() for t in self.bufs.inputs]  # negative: batch tensors
        return ids
""",
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_marked_lines(tmp_path, name):
    assert_marked_lines(tmp_path, name, CASES[name])


@pytest.mark.parametrize("name", sorted(CASES))
@pytest.mark.parametrize("filler", [False, True], ids=["as-is", "with-filler"])
def test_pruned_is_whole(tmp_path, name, filler):
    assert_pruned_is_whole(tmp_path, name, CASES[name], filler)
