"""Value flow, round 12 (issue 19, families f1 and f2): attribute getters other than getattr
(`object.__getattribute__`), the receiver's own classes (a construction runs its class's method, not a
sibling subclass's override; `obj.__class__ = C` switches it), a subclass that overrides the reading method
assigns nothing its base's read sees, classes made by a call (`type(name, bases, ns)`, `types.new_class`),
the nn.Module call protocol (`pool(i)` runs forward) and attributes under computed names, a parameter's
None-ness decided by the call, a context-manager generator that yields a container, isinstance past an
early exit and over a Union, methods read out of a class's namespace (`vars(C)["m"]` over the MRO), a
generator's yields and a base's `__post_init__` in the pruner. Each shape has look-alikes beside it; the
pruned analysis gives the whole file's findings."""

from __future__ import annotations

import pytest

from marked_cases import FILLER
from marked_cases import check as _check

CASES = {
    # f1: object.__getattribute__ past a guarded holder, on another object (vLLM style)
    "getattribute_store": """
import torch


class KVStore:
    def __init__(self, kv_cache):
        object.__setattr__(self, "_kv", kv_cache)
        object.__setattr__(self, "_steps", torch.zeros(4, dtype=torch.int32))

    def __getattribute__(self, name):
        if name.startswith("_"):
            raise AttributeError(name)
        return object.__getattribute__(self, name)


class GuardedImpl:
    def __init__(self, layer):
        self.store = KVStore(layer.kv_cache)

    def forward(self, layer, query, key, value, kv_cache, attn_metadata, output=None):
        whole = object.__getattribute__(self.store, "_kv").to(query.dtype)  # positive
        steps = object.__getattribute__(self.store, "_steps").to(torch.int64)  # negative
        held = getattr(self.store, "_kv")
        again = held.half()  # positive
        return whole, steps, again
""",
    # f2: a construction runs its own class's method, not a sibling subclass's override (sglang style)
    "exact_construction": """
import torch


class SlotView:
    def __init__(self, pool, layer_id, loc):
        self.pool, self.layer_id, self.loc = pool, layer_id, loc

    def fetch(self):
        return self.pool.get_value_buffer(self.layer_id)[self.loc]


class LayerView(SlotView):
    def fetch(self):
        return self.pool.get_value_buffer(self.layer_id)


class ExactBackend:
    def __init__(self, token_to_kv_pool):
        self.token_to_kv_pool = token_to_kv_pool

    def forward_extend(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        view = SlotView(self.token_to_kv_pool, layer.layer_id, forward_batch.out_cache_loc)
        rows = view.fetch().to(q.dtype)  # negative
        every = LayerView(self.token_to_kv_pool, layer.layer_id, None).fetch().to(q.dtype)  # positive
        view.__class__ = LayerView
        switched = view.fetch().float()  # positive
        return rows, every, switched
""",
    # f2: a factory's construction is exact too; a class whose __new__ may pick a subclass is not (sglang style)
    "factory_and_new": """
import torch


class RowsReader:
    def __init__(self, pool, layer_id, loc):
        self.pool, self.layer_id, self.loc = pool, layer_id, loc

    def read(self):
        return self.pool.get_key_buffer(self.layer_id)[self.loc]


class LayerReader(RowsReader):
    def read(self):
        return self.pool.get_key_buffer(self.layer_id)


def rows_reader(pool, layer_id, loc):
    return RowsReader(pool, layer_id, loc)


class PickedReader:
    def __new__(cls, pool, layer_id, whole):
        return super().__new__(WholePicked if whole else cls)

    def __init__(self, pool, layer_id, whole):
        self.pool, self.layer_id = pool, layer_id

    def read(self):
        return self.pool.get_key_buffer(self.layer_id)[:4]


class WholePicked(PickedReader):
    def read(self):
        return self.pool.get_key_buffer(self.layer_id)


class FactoryBackend:
    def __init__(self, token_to_kv_pool):
        self.token_to_kv_pool = token_to_kv_pool

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        made = rows_reader(self.token_to_kv_pool, layer.layer_id, forward_batch.out_cache_loc)
        rows = made.read().to(q.dtype)  # negative
        picked = PickedReader(self.token_to_kv_pool, layer.layer_id, True)
        whole = picked.read().to(q.dtype)  # positive
        return rows, whole
""",
    # f2: a subclass overriding the reading method replaces the attribute; its base's read sees the base's
    # own buffer (vLLM style); an override that calls super() lets the base's read see its store
    "override_replaces_attribute": """
import torch


class ScratchImpl:
    def __init__(self, num_kv_heads, head_size):
        self.buf = torch.empty(8, num_kv_heads, head_size, dtype=torch.float8_e4m3fn)

    def forward(self, layer, query, key, value, kv_cache, attn_metadata, output=None):
        return self.buf.to(query.dtype)  # negative


class LayerCacheImpl(ScratchImpl):
    def forward(self, layer, query, key, value, kv_cache, attn_metadata, output=None):
        self.buf = kv_cache
        return self._widen(query)

    def _widen(self, query):
        return self.buf.float()  # positive


class SharedBase:
    def __init__(self):
        self.src = torch.zeros(4, 2, dtype=torch.float8_e4m3fn)

    def forward(self, layer, query, key, value, kv_cache, attn_metadata, output=None):
        return self.src.to(query.dtype)  # positive


class SharedImpl(SharedBase):
    def forward(self, layer, query, key, value, kv_cache, attn_metadata, output=None):
        self.src = kv_cache
        return super().forward(layer, query, key, value, kv_cache, attn_metadata, output)
""",
    # f2: classes made by a call, with methods in their namespace (TRT-LLM style)
    "made_classes": """
import types

import torch


class BlockManagerBase:
    def __init__(self, blocks, layers):
        self.arenas = [torch.empty(blocks, 2, 64, 8, 128, dtype=torch.float8_e4m3fn) for _ in range(layers)]
        self.used = torch.zeros(blocks, dtype=torch.int32)

    def arena(self, i):
        return self.arenas[i]


class TailMixin:
    def arena(self, i):
        return super().arena(i)[-4:]


def _fill(namespace):
    namespace["whole_arena"] = lambda self, i: self.arenas[i]
    namespace["one_block"] = lambda self, i: self.arenas[i][3]


PlainManager = type("PlainManager", (BlockManagerBase,), {"kind": "plain"})
TailManager = type("TailManager", (TailMixin, BlockManagerBase), {})
FilledManager = types.new_class("FilledManager", (BlockManagerBase,), {}, _fill)


class MadeClassAttention:
    def __init__(self, layer_idx):
        self.plain = PlainManager(512, 4)
        self.tail = TailManager(512, 4)
        self.filled = FilledManager(512, 4)
        self.layer_idx = layer_idx

    def forward(self, q, k, v, attn_metadata):
        a = self.plain.arena(self.layer_idx).to(q.dtype)  # positive
        b = self.tail.arena(self.layer_idx).to(q.dtype)  # negative
        c = self.filled.whole_arena(self.layer_idx).to(q.dtype)  # positive
        d = self.filled.one_block(self.layer_idx).to(q.dtype)  # negative
        e = self.plain.used.to(torch.int64)  # negative
        return a, b, c, d, e
""",
    # f2: an nn.Module pool called (its forward runs), buffers under computed names (sglang style)
    "module_call_forward": """
import torch
import torch.nn as nn


class LatentStore(nn.Module):
    def __init__(self, size, layers, dtype):
        super().__init__()
        for i in range(layers):
            setattr(self, f"latent_{i}_buf", torch.empty(size, 1, 576, dtype=dtype))
            self.register_buffer(f"lens_{i}", torch.zeros(64, dtype=torch.int32), persistent=False)

    def forward(self, layer_id):
        return getattr(self, f"latent_{layer_id}_buf")

    def lens(self, layer_id):
        return getattr(self, f"lens_{layer_id}")


class GatherStore(LatentStore):
    def forward(self, layer_id, loc=None):
        return super().forward(layer_id).index_select(0, loc)


class StoreBackend:
    def __init__(self):
        self.store = LatentStore(4096, 2, torch.float8_e4m3fn)
        self.gather = GatherStore(4096, 2, torch.float8_e4m3fn)

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        lat = self.store(layer.layer_id).to(torch.bfloat16)  # positive
        cur = self.gather(layer.layer_id, forward_batch.out_cache_loc).to(torch.bfloat16)  # negative
        lens = self.store.lens(layer.layer_id).to(torch.int64)  # negative
        return lat, cur, lens
""",
    # f2: the call decides whether an optional argument is None (hip style, statement form)
    "none_parameter": """
import torch


class PagedBase:
    def __init__(self, pool):
        self.pool = pool

    def plane(self, layer_id):
        return self.pool.get_key_buffer(layer_id)


class PagedBackend(PagedBase):
    def plane(self, layer_id, rows=None):
        base = super().plane(layer_id)
        if rows is None:
            return base
        return base[rows]

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        whole = self.plane(layer.layer_id).to(torch.bfloat16)  # positive
        none = self.plane(layer.layer_id, rows=None).float()  # positive
        part = self.plane(layer.layer_id, forward_batch.out_cache_loc).to(torch.bfloat16)  # negative
        return whole, none, part
""",
    # f1: a context-manager generator yielding a list of caches (lmdeploy style)
    "contextmanager_yields_list": """
import contextlib

import torch


class CacheLender:
    def __init__(self, cache_engine):
        self.gpu_cache = cache_engine.gpu_cache
        self.offsets = torch.zeros(16, dtype=torch.int32)

    @contextlib.contextmanager
    def lend(self):
        yield self.gpu_cache

    @contextlib.contextmanager
    def lend_offsets(self):
        yield self.offsets


class LendingAttention:
    def __init__(self, cache_engine, layer_idx):
        self.lender = CacheLender(cache_engine)
        self.layer_idx = layer_idx

    def forward(self, query, key, value, attn_metadata, k_scales_zeros=None, v_scales_zeros=None):
        with self.lender.lend() as caches:
            k_cache, v_cache = caches[self.layer_idx]
            dense = k_cache.to(query.dtype)  # positive
        with self.lender.lend_offsets() as offs:
            first = offs[0].to(torch.int64)  # negative
        return dense, first
""",
    # f1: isinstance past an early exit, over a `|` union annotation (sglang style)
    "isinstance_early_exit": """
import torch


class DenseLatent:
    def __init__(self, size, layers):
        self.planes = [torch.empty(size, 1, 576, dtype=torch.float8_e4m3fn) for _ in range(layers)]


class StepRows:
    def __init__(self):
        self.planes = [torch.empty(32, 1, 576, dtype=torch.float8_e4m3fn)]


class EarlyExitBackend:
    def __init__(self, src: "DenseLatent | StepRows"):
        self.src = src

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        src = self.src
        if not isinstance(src, DenseLatent):
            return src.planes[0].to(q.dtype)  # negative
        return src.planes[layer.layer_id].to(q.dtype)  # positive
""",
    # f2: a method read out of a class's namespace over the MRO, and through __dict__ (lmdeploy style)
    "class_namespace_method": """
import inspect

import torch


class WholeReader:
    def read(self, idx):
        return self.engine.gpu_cache[idx][0]


class RecentReader(WholeReader):
    def read(self, idx):
        return self.engine.gpu_cache[idx][0][-8:]


class NamespaceAttention(RecentReader):
    def __init__(self, engine, idx):
        self.engine = engine
        self.idx = idx

    def _pick(self, owner):
        for klass in inspect.getmro(type(self)):
            if klass is owner:
                return klass.__dict__["read"]
        raise LookupError(owner)

    def forward(self, query, key, value, attn_metadata):
        full = self._pick(WholeReader)(self, self.idx).to(query.dtype)  # positive
        direct = vars(WholeReader)["read"](self, self.idx).float()  # positive
        recent = self.read(self.idx).to(query.dtype)  # negative
        return full, direct, recent
""",
    # f2: a base __post_init__ fetches the layer, a subclass's derives from it; a generator's loop yields
    # (TRT-LLM style)
    "post_init_chain_and_yields": """
from dataclasses import dataclass, field
from typing import Any

import torch


@dataclass
class LayerHandle:
    manager: Any
    layer_idx: int
    raw: Any = field(init=False)

    def __post_init__(self):
        self.raw = self.manager.get_buffers(self.layer_idx)


@dataclass
class VHandle(LayerHandle):
    v: Any = field(init=False)
    ids: Any = field(init=False)

    def __post_init__(self):
        super().__post_init__()
        self.v = self.raw[:, 1]
        self.ids = torch.arange(4, dtype=torch.int32)


class LayerWalk:
    def __init__(self, manager, layers):
        self.manager = manager
        self.layers = layers

    def __iter__(self):
        for i in self.layers:
            yield self.manager.get_buffers(i)


class HandleAttention:
    def forward(self, q, k, v, attn_metadata):
        h = VHandle(attn_metadata.kv_cache_manager, 0)
        vv = h.v.to(q.dtype)  # positive
        ids = h.ids.to(torch.int64)  # negative
        walked = [t.float() for t in LayerWalk(attn_metadata.kv_cache_manager, (0, 1))]  # positive
        return vv, ids, walked
""",
}


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
    path = tmp_path / f"{name}.py"
    path.write_text(CASES[name] + (FILLER if filler else ""))
    assert _check(path, True) == _check(path, False)
