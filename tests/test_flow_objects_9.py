"""Value flow, round 9 (issue 19, families f1-f2): property chains over annotated objects, setattr/getattr
with names from constant tuples, queue/ContextVar holders held in locals and on self, await and
coroutine runners, methods a class decorator (or a module-level `Cls.m = f`) installs, an inherited
`__call__` of an annotated object, `__init_subclass__` class keywords choosing the attribute an
inherited accessor reads, an override that gathers winning over its base for that subclass, and a read
of `self.x` right after a store in the same method. Each shape has look-alikes beside it; the pruned
analysis gives the whole file's findings."""

from __future__ import annotations

import pytest

from castlint.tables import load_tables
from marked_cases import FILLER
from marked_cases import check as _check

TABLES = load_tables()

CASES = {
    # f1: properties returning annotated objects, chained (sglang style)
    "property_chain_sglang": """
import torch


class TokenPool:
    def __init__(self, size, heads, dim, layer_num):
        self.k_buffer = [torch.zeros((size + 1, heads, dim)) for _ in range(layer_num)]
        self.req_lens = torch.zeros((512,), dtype=torch.int32)

    @property
    def keys(self):
        return self.k_buffer

    @property
    def lens(self):
        return self.req_lens


class Worker:
    def __init__(self, pool: "TokenPool"):
        self._pool = pool

    @property
    def pool(self) -> TokenPool:
        return self._pool

    def current(self) -> TokenPool:
        return self._pool


class Backend:
    def __init__(self, worker: Worker):
        self.worker = worker

    @property
    def store(self) -> TokenPool:
        return self.worker.pool

    def forward_decode(self, q, layer, forward_batch):
        a = self.store.keys[layer.layer_id].to(q.dtype)  # positive
        b = self.worker.current().keys[layer.layer_id].float()  # positive
        c = self.store.lens.to(torch.int64)  # negative
        d = self.store.keys[layer.layer_id][forward_batch.out_cache_loc].float()  # negative
        return a, b, c, d
""",
    # f1: setattr under names of a module tuple, getattr back (vLLM style)
    "setattr_names_vllm": """
import torch

_NAMES = ["k_slot", "v_slot", "table_slot"]


class SlotImpl:
    def __init__(self):
        for n in _NAMES:
            setattr(self, n, None)

    def forward(self, layer, query, key, value, kv_cache, attn_metadata, output=None):
        setattr(self, _NAMES[0], kv_cache[0])
        setattr(self, _NAMES[-1], attn_metadata.slot_mapping)
        k = self.k_slot.to(query.dtype)  # positive
        k2 = getattr(self, _NAMES[0]).half()  # positive
        t = getattr(self, "table_slot").to(torch.int64)  # negative
        return k, k2, t
""",
    # f1: a queue held on self and a local queue (vLLM connector style)
    "queue_handoff_vllm": """
import queue

import torch


class Handoff:
    def __init__(self):
        self._jobs = queue.Queue()
        self._ids = queue.Queue()

    def save_kv_layer(self, layer_name, kv_layer, attn_metadata, **kwargs):
        self._jobs.put(kv_layer)
        self._ids.put(attn_metadata.slot_mapping)

    def wait_for_save(self):
        layer = self._jobs.get()
        ids = self._ids.get()
        whole = layer.to(torch.bfloat16)  # positive
        rows = layer.flatten(0, 1)[ids].to(torch.bfloat16)  # negative
        return whole, rows, ids.to(torch.int64)  # negative

    def start_load_kv(self, forward_context, **kwargs):
        inbox = queue.SimpleQueue()
        for cache in forward_context.kv_caches:
            inbox.put(cache)
        got = inbox.get_nowait().float()  # positive
        other = queue.SimpleQueue()
        other.put(forward_context.slot_mapping)
        ids = other.get().to(torch.int64)  # negative
        return got, ids
""",
    # f2: async fetch, awaited and run by an event loop (vLLM connector style)
    "async_fetch_vllm": """
import asyncio

import torch


class Source:
    def __init__(self, kv_caches):
        self.kv_caches = kv_caches

    async def layer(self, name):
        return self.kv_caches[name]


class Rows(Source):
    async def layer(self, name, ids=None):
        whole = await super().layer(name)
        return whole[:, ids]


class Loader:
    def __init__(self, kv_caches):
        self.src = Source(kv_caches)
        self.rows = Rows(kv_caches)
        self.loop = asyncio.new_event_loop()

    async def pull(self, name):
        t = await self.src.layer(name)
        return t.to(torch.bfloat16)  # positive

    async def pull_rows(self, name, ids):
        t = await self.rows.layer(name, ids)
        return t.to(torch.bfloat16)  # negative

    def start_load_kv(self, forward_context, **kwargs):
        a = self.loop.run_until_complete(self.src.layer("l0")).half()  # positive
        b = asyncio.run(self.rows.layer("l0", forward_context.ids)).half()  # negative
        return a, b
""",
    # f2: accessors a class decorator (and a module-level assignment) installs (sglang style)
    "installed_accessors_sglang": """
import torch


def add_planes(cls):
    def plane(self, layer_id):
        return self.planes[layer_id]

    def rows(self, layer_id, loc):
        return self.planes[layer_id][loc]

    cls.plane = plane
    setattr(cls, "rows", rows)
    return cls


def _latent(self, layer_id):
    return self.planes[layer_id][..., :512]


@add_planes
class PlanePool:
    def __init__(self, size, layer_num):
        self.planes = [torch.zeros((size + 1, 1, 576)) for _ in range(layer_num)]


PlanePool.latent = _latent


class Backend:
    def __init__(self, pool: PlanePool):
        self.pool = pool

    def forward_decode(self, q, layer, forward_batch):
        a = self.pool.plane(layer.layer_id).to(q.dtype)  # positive
        b = self.pool.latent(layer.layer_id).float()  # positive
        c = self.pool.rows(layer.layer_id, forward_batch.out_cache_loc).to(q.dtype)  # negative
        return a, b, c
""",
    # f2: an inherited __call__ of an annotated manager; an override that windows (TRT-LLM style)
    "inherited_call_trtllm": """
import torch


class Buffers:
    def __init__(self, num_layers, blocks, tpb, heads, dim):
        self.layers = [torch.empty((blocks, 2, tpb, heads, dim)) for _ in range(num_layers)]

    def __call__(self, idx):
        return self.layers[idx]


class Fp8Buffers(Buffers):
    pass


class Window(Buffers):
    def __call__(self, idx, n=1):
        return super().__call__(idx)[:n]


class Attention:
    def __init__(self, idx, bufs: Fp8Buffers, win: Window):
        self.idx = idx
        self.bufs = bufs
        self.win = win

    def forward(self, q, metadata):
        a = self.bufs(self.idx).to(q.dtype)  # positive
        b = self.win(self.idx, metadata.num_ctx_blocks).to(q.dtype)  # negative
        c = self.bufs(self.idx).to(q.device)  # negative
        return a, b, c
""",
    # f2: __init_subclass__ keywords pick the attribute an inherited accessor reads (sglang style)
    "init_subclass_keyword_sglang": """
import torch


class Base:
    _store = "k_buffer"

    def __init_subclass__(cls, store="k_buffer", **kwargs):
        super().__init_subclass__(**kwargs)
        cls._store = store

    def layer(self, layer_id):
        return getattr(self, self._store)[layer_id]


class Keys(Base, store="k_buffer"):
    def __init__(self, size, layer_num, heads, dim):
        self.k_buffer = [torch.empty((size + 1, heads, dim)) for _ in range(layer_num)]


class Values(Base):
    def __init__(self, size, layer_num, heads, dim):
        self.k_buffer = [torch.empty((size + 1, heads, dim)) for _ in range(layer_num)]


class Counts(Base, store="counts"):
    def __init__(self, layer_num, max_reqs):
        self.counts = [torch.zeros((max_reqs,), dtype=torch.int32) for _ in range(layer_num)]


class Backend:
    def __init__(self, keys: Keys, values: Values, counts: Counts):
        self.keys = keys
        self.values = values
        self.counts = counts

    def forward_decode(self, q, layer, forward_batch):
        a = self.keys.layer(layer.layer_id).to(q.dtype)  # positive
        b = self.values.layer(layer.layer_id).half()  # positive
        c = self.counts.layer(layer.layer_id).to(torch.int64)  # negative
        return a, b, c
""",
    # f2: an override that gathers wins over the base for its subclass (sglang style)
    "override_gathers_sglang": """
import torch


class Arena:
    def __init__(self, size, layer_num):
        self.bufs = [torch.zeros((size + 1, 1, 576), dtype=torch.uint8) for _ in range(layer_num)]

    def store(self, layer_id):
        return self.bufs[layer_id]


class Fp8Arena(Arena):
    def store(self, layer_id):
        return super().store(layer_id).view(torch.float8_e4m3fn)


class Latent(Fp8Arena):
    rank = 512


class Rows(Fp8Arena):
    def store(self, layer_id, loc=None):
        return super().store(layer_id)[loc]


class Backend:
    def __init__(self, pool: Latent, rows: Rows):
        self.pool = pool
        self.rows = rows

    def forward_decode(self, q, layer, forward_batch):
        a = self.pool.store(layer.layer_id).to(torch.bfloat16)  # positive
        b = self.rows.store(layer.layer_id, forward_batch.out_cache_loc).to(q.dtype)  # negative
        return a, b
""",
    # f2: a read of self.x right after a store in the same method (vLLM style)
    "store_then_read_vllm": """
import torch


class Impl:
    def __init__(self):
        self.cur = None

    def forward(self, layer, query, key, value, kv_cache, attn_metadata, output=None):
        self.cur = kv_cache
        a = self.cur[0].to(query.dtype)  # positive
        self.cur = kv_cache[:, attn_metadata.block_table[:, 0]]
        b = self.cur.to(query.dtype)  # negative
        if attn_metadata.num_prefills:
            c = self.cur.float()  # negative
        else:
            c = None
        self.cur = kv_cache
        d = self.cur.unbind(0)[1].half()  # positive
        return a, b, c, d
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


def test_protocol_annotation_is_structural(tmp_path):
    """A parameter annotated with a typing.Protocol may be any class with the methods it calls."""
    path = tmp_path / "protocol.py"
    path.write_text(
        """
from typing import Protocol

import torch


class Source(Protocol):
    def planes(self, name): ...


class Paged:
    def __init__(self, names, num_blocks, heads, dim):
        self.kv_caches = {n: torch.zeros(2, num_blocks, 16, heads, dim) for n in names}

    def planes(self, name):
        kv = self.kv_caches[name]
        return kv[0], kv[1]


class Impl:
    def __init__(self, source: Source):
        self.source = source

    def forward(self, layer, query, key, value, kv_cache, attn_metadata, output=None):
        k, v = self.source.planes(layer.layer_name)
        return k.to(query.dtype)
"""
    )
    assert [line for _, line, _ in _check(path, False)] == [26]
    assert _check(path, True) == _check(path, False)
