"""Pools through other objects and class hierarchies, round 7 (families f1, f2): holders whose
getter hands back what their setter stored (`contextvars.ContextVar`, `queue.Queue`), attributes of
a module-level `threading.local()`, ... Each shape has look-alikes beside it; the pruned analysis
gives the whole file's findings."""

from __future__ import annotations

import pytest

from castlint.tables import load_tables
from marked_cases import FILLER
from marked_cases import check as _check

TABLES = load_tables()

CASES = {
    # f1: a queue between a runner and a backend (sglang style): get() is what put() put
    "queue_holder_sglang": """
import queue

import torch

_PENDING = queue.SimpleQueue()
_ROWS = queue.Queue()


class StepRunner:
    def __init__(self, token_to_kv_pool):
        self.token_to_kv_pool = token_to_kv_pool

    def forward(self, forward_batch, layer_id):
        _PENDING.put(self.token_to_kv_pool.get_key_buffer(layer_id))
        _ROWS.put(forward_batch.out_cache_loc)


class QueueBackend:
    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        buf = _PENDING.get()
        dense = buf.to(q.dtype)  # positive
        rows = _ROWS.get_nowait().to(torch.int64)  # negative
        return dense, rows
""",
    # f1: a ContextVar with a default at get() (lmdeploy style)
    "contextvar_default_lmdeploy": """
import contextvars

import torch

_CACHES = contextvars.ContextVar("caches")
_OFFSETS = contextvars.ContextVar("offsets", default=None)


class CacheEngine:
    def __init__(self, gpu_cache):
        self.gpu_cache = gpu_cache

    def forward(self, inputs):
        _CACHES.set(self.gpu_cache)
        _OFFSETS.set(inputs.block_offsets)


class CtxAttention(torch.nn.Module):
    def forward(self, query, attn_metadata, layer_idx):
        k_cache, v_cache = _CACHES.get([])[layer_idx]
        kf = k_cache.to(query.dtype)  # positive
        offs = _OFFSETS.get().to(torch.int64)  # negative
        return kf, offs
""",
    # f1: an attribute of a module-level threading.local (vLLM style)
    "thread_local_attr_vllm": """
import threading

import torch

_state = threading.local()


def bind_runner(runner, attn_metadata):
    _state.caches = runner.kv_caches
    _state.slots = attn_metadata.slot_mapping


class LocalImpl:
    def __init__(self, dtype):
        self.dtype = dtype

    def execute_model(self, scheduler_output, i):
        whole = _state.caches[i].to(self.dtype)  # positive
        idx = _state.slots.to(torch.int64)  # negative
        return whole, idx
""",
    # f1: the iteration protocol, __iter__ returning an iterator over every layer (sglang style)
    "iter_protocol_sglang": """
import torch


class KeyLayers:
    def __init__(self, pool, n):
        self.pool = pool
        self.n = n

    def __iter__(self):
        return iter([self.pool.get_key_buffer(i) for i in range(self.n)])


class StepRows:
    def __init__(self, pool, n, loc):
        self.pool, self.n, self.loc = pool, n, loc

    def __iter__(self):
        for i in range(self.n):
            yield self.pool.get_key_buffer(i)[self.loc]


class IterBackend:
    def __init__(self, model_runner):
        self.layers = KeyLayers(model_runner.token_to_kv_pool, 4)
        self.rows = StepRows(model_runner.token_to_kv_pool, 4, model_runner.loc)

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        shadow = [t.to(q.dtype) for t in self.layers]  # positive
        last = list(self.layers)[-1].float()  # positive
        rows = [r.to(q.dtype) for r in self.rows]  # negative
        return shadow, last, rows
""",
    # f1: an iterator class, __iter__ returning self and __next__ one layer's cache (vLLM style)
    "next_protocol_vllm": """
import torch


class LayerCursor:
    def __init__(self, runner):
        self.runner = runner
        self.i = 0

    def __iter__(self):
        return self

    def __next__(self):
        if self.i >= len(self.runner.kv_caches):
            raise StopIteration
        self.i += 1
        return self.runner.kv_caches[self.i - 1]


class PositionCursor:
    def __init__(self, n):
        self.n = n

    def __iter__(self):
        return self

    def __next__(self):
        return torch.arange(self.n)


class CursorImpl:
    def __init__(self, runner):
        self.runner = runner

    def execute_model(self, scheduler_output, dtype):
        for cache in LayerCursor(self.runner):
            self.out = cache.to(dtype)  # positive
        first = next(iter(LayerCursor(self.runner))).half()  # positive
        pos = [p.to(torch.int32) for p in PositionCursor(8)]  # negative
        return first, pos
""",
}

PRUNER_GAPS: dict = {}


@pytest.mark.parametrize("name", sorted(CASES))
def test_marked_lines(tmp_path, name):
    path = tmp_path / f"{name}.py"
    path.write_text(CASES[name])
    lines = CASES[name].splitlines()
    found = {line for _, line, _ in _check(path, False)}
    positives = {i for i, text in enumerate(lines, 1) if "# positive" in text}
    negatives = {i for i, text in enumerate(lines, 1) if "# negative" in text}
    assert positives and negatives
    assert positives - found == set()
    assert found & negatives == set()


@pytest.mark.parametrize("name", sorted(CASES))
@pytest.mark.parametrize("filler", [False, True], ids=["as-is", "with-filler"])
def test_pruned_is_whole(tmp_path, name, filler):
    if name in PRUNER_GAPS:
        pytest.xfail(PRUNER_GAPS[name])
    path = tmp_path / f"{name}.py"
    path.write_text(CASES[name] + (FILLER if filler else ""))
    assert _check(path, True) == _check(path, False)
