"""Value flow, round 8 (issue 19, families f1-f3): descriptors' `__get__`, dataclass fields set in
`__post_init__`, attributes of holder objects read as containers, vLLM layers' `kv_cache` entries,
template methods whose subclass overrides a fetch, class-level state (`cls._x`, `type(self)._x`),
`register_buffer`/`setattr` storage, match/case bindings, tuple concatenation, TRT-LLM managers under
any name, and windows of the blocks dimension of a planes-first cache. Each shape has look-alikes
beside it; the pruned analysis gives the whole file's findings."""

from __future__ import annotations

import pytest

from castlint.tables import load_tables
from marked_cases import FILLER
from marked_cases import check as _check

TABLES = load_tables()

CASES = {
    # f1: a data descriptor on a per-layer view class (sglang style)
    "descriptor_view_sglang": """
import torch


class Pool:
    def __init__(self, size, heads, dim, layer_num):
        self.k_buffer = [torch.zeros((size + 1, heads, dim)) for _ in range(layer_num)]


class LayerPlane:
    def __get__(self, obj, objtype=None):
        if obj is None:
            return self
        return obj.pool.k_buffer[obj.layer_id]


class StepRows:
    def __get__(self, obj, objtype=None):
        return obj.pool.k_buffer[obj.layer_id][obj.loc]


class View:
    plane = LayerPlane()
    rows = StepRows()
    label = "k"

    def __init__(self, pool, layer_id):
        self.pool = pool
        self.layer_id = layer_id
        self.loc = None

    def widened(self):
        return self.plane.float()  # positive


class Backend:
    def __init__(self, pool, n):
        self.views = [View(pool, i) for i in range(n)]

    def forward_decode(self, q, k, v, layer, forward_batch):
        view = self.views[layer.layer_id]
        whole = view.plane.to(q.dtype)  # positive
        part = view.rows.to(q.dtype)  # negative
        first = view.plane[: forward_batch.batch_size].to(q.dtype)  # negative
        return whole, part, first, view.widened()
""",
    # f1: a cached_property and a property of a reader object (lmdeploy style)
    "cached_property_lmdeploy": """
import functools

import torch


class LayerReader:
    def __init__(self, cache_engine, layer_idx):
        self.engine = cache_engine
        self.layer_idx = layer_idx

    @functools.cached_property
    def key_cache(self):
        return self.engine.gpu_cache[self.layer_idx][0]

    @property
    def offsets(self):
        return torch.zeros(4, dtype=torch.int32)


class Attn(torch.nn.Module):
    def __init__(self, cache_engine, layer_idx):
        super().__init__()
        self.reader = LayerReader(cache_engine, layer_idx)

    def forward(self, query, attn_metadata):
        kf = self.reader.key_cache.to(query.dtype)  # positive
        offs = self.reader.offsets.to(torch.int64)  # negative
        return kf, offs
""",
    # f1: dataclass fields with init=False that __post_init__ derives from the pool (sglang style)
    "post_init_fields_sglang": """
from dataclasses import dataclass, field
from typing import Any

import torch


@dataclass
class LatentSlot:
    pool: Any
    layer_id: int
    rank: int = 512
    latent: torch.Tensor = field(init=False)
    scale: torch.Tensor = field(init=False)

    def __post_init__(self):
        self.latent = self.pool.get_key_buffer(self.layer_id)
        self.scale = torch.ones(1)


@dataclass
class RowSlot:
    rows: torch.Tensor

    def __post_init__(self):
        self.rows = self.rows[:8]


class MLABackend:
    def __init__(self, model_runner):
        pool = model_runner.token_to_kv_pool
        self.slots = [LatentSlot(pool, i) for i in range(model_runner.num_layers)]

    def forward_decode(self, q, k, v, layer, forward_batch):
        slot = self.slots[layer.layer_id]
        dense = slot.latent.to(q.dtype)  # positive
        nope = slot.latent[..., : slot.rank].float()  # positive
        s = slot.scale.float()  # negative
        rows = slot.latent[forward_batch.out_cache_loc].to(q.dtype)  # negative
        mine = RowSlot(k).rows.to(q.dtype)  # negative
        return dense, nope, s, rows, mine
""",
    # f1: vLLM layers found through named_modules()/get_submodule(): their kv_cache entries
    "named_modules_kv_vllm": """
import torch
from torch import nn


class Attention(nn.Module):
    def __init__(self, prefix):
        super().__init__()
        self.layer_name = prefix
        self.kv_cache = [torch.tensor([])]
        self._v_scale = torch.tensor(1.0)


class Offloader:
    def __init__(self, model):
        self.model = model

    def execute_model(self, scheduler_output, dtype=torch.bfloat16):
        out = []
        for _, module in self.model.named_modules():
            if isinstance(module, Attention):
                entry = module.kv_cache[0]
                out.append(entry[1].to(dtype))  # positive
                out.append(module._v_scale.float())  # negative
        att = self.model.get_submodule(scheduler_output.first)
        cache = att.kv_cache[0]
        k_plane = cache[0].float()  # positive
        picked = cache[:, scheduler_output.block_ids].to(dtype)  # negative
        moved = cache.to("cpu")  # negative
        return out, k_plane, picked, moved
""",
    # f1: an engine installed in a module-level threading.local, its caches unpacked or indexed
    "thread_local_holder_lmdeploy": """
import threading

import torch

_ctx = threading.local()


class CacheEngine:
    def __init__(self, num_layers, num_blocks, block_size, heads, dim):
        shape = (num_blocks, block_size, heads, dim)
        self.paged = [(torch.empty(shape), torch.empty(shape)) for _ in range(num_layers)]
        self.scales = [torch.ones(num_blocks, 2) for _ in range(num_layers)]


def activate(engine):
    _ctx.engine = engine


class Attn(torch.nn.Module):
    def __init__(self, layer_idx):
        super().__init__()
        self.layer_idx = layer_idx

    def forward(self, query, attn_metadata):
        vf = _ctx.engine.paged[self.layer_idx][1].to(query.dtype)  # positive
        kf = _ctx.engine.paged[self.layer_idx][0].float()  # positive
        sc = _ctx.engine.scales[self.layer_idx].to(query.dtype)  # negative
        blk = _ctx.engine.paged[self.layer_idx][0][attn_metadata.block_offsets].half()  # negative
        return vf, kf, sc, blk
""",
    # f2: a template method whose default fetch is whole and one subclass's fetch gathers (TRT-LLM style)
    "template_fetch_trtllm": """
import abc

import torch


class LatentAttention(abc.ABC):
    def __init__(self, layer_idx, rank):
        self.layer_idx = layer_idx
        self.rank = rank

    def fetch(self, metadata):
        return metadata.kv_cache_manager.get_buffers(self.layer_idx)

    @abc.abstractmethod
    def run(self, q, latent): ...

    def forward(self, q, metadata):
        return self.run(q, self.fetch(metadata))  # negative


class Upcast(LatentAttention):
    def run(self, q, latent):
        return latent.to(q.dtype)  # positive


class RopePart(LatentAttention):
    def run(self, q, latent):
        return latent[..., self.rank :].float()  # positive


class Gathered(LatentAttention):
    def fetch(self, metadata):
        return super().fetch(metadata)[metadata.block_ids]

    def run(self, q, latent):
        return latent.to(q.dtype)  # negative


class QueryOnly(LatentAttention):
    def run(self, q, latent):
        return q.to(latent.dtype)  # negative
""",
    # f2: class-level caches bound by a classmethod the engine calls (lmdeploy style)
    "class_level_caches_lmdeploy": """
from typing import ClassVar, List

import torch


class SharedCaches(torch.nn.Module):
    _caches: ClassVar[List] = []
    _states: ClassVar[List] = []

    @classmethod
    def attach(cls, gpu_cache, state_cache):
        cls._caches = list(gpu_cache)
        cls._states = list(state_cache)

    def __init__(self, layer_idx):
        super().__init__()
        self.layer_idx = layer_idx


class Reader(SharedCaches):
    def forward(self, query, attn_metadata):
        k_cache, v_cache = self._caches[self.layer_idx]
        kf = k_cache.to(query.dtype)  # positive
        vf = type(self)._caches[self.layer_idx][1].half()  # positive
        kk = self.__class__._caches[self.layer_idx][0].float()  # positive
        st = self._states[self.layer_idx][attn_metadata.state_ids].float()  # negative
        ids = attn_metadata.block_offsets.to(torch.int64)  # negative
        return kf, vf, kk, st, ids
""",
    # f2: buffers registered by a base module, read by a subclass (lmdeploy style)
    "registered_buffers_lmdeploy": """
import torch
from torch import nn


class CacheHolder(nn.Module):
    def __init__(self, layer_idx, k_cache, v_cache, scales):
        super().__init__()
        self.layer_idx = layer_idx
        self.register_buffer("keys", k_cache, persistent=False)
        setattr(self, "values", v_cache)
        self.register_buffer("scales", scales, persistent=False)


class Dequant(CacheHolder):
    def forward(self, query, attn_metadata):
        kf = self.keys.to(query.dtype)  # positive
        vf = getattr(self, "values").float()  # positive
        sc = self.scales.to(query.dtype)  # negative
        part = self.values[attn_metadata.block_offsets].to(query.dtype)  # negative
        return kf, vf, sc, part


def build(cache_engine, n):
    return [Dequant(i, *cache_engine.gpu_cache[i], torch.ones(n)) for i in range(n)]
""",
    # f3: match/case over records, dicts and pairs of a TRT-LLM manager held under any name
    "match_patterns_trtllm": """
from dataclasses import dataclass

import torch


@dataclass
class Slot:
    kind: str
    buf: torch.Tensor
    ids: torch.Tensor


class Copier:
    def __init__(self, mgr, n):
        self.slots = [Slot("full", mgr.get_buffers(i), torch.arange(4)) for i in range(n)]
        self.rows = [{"buf": mgr.get_buffers(i), "scale": torch.ones(1)} for i in range(n)]
        self.halves = [(mgr.get_buffers(i)[:, 0], mgr.get_buffers(i)[:, 1]) for i in range(n)]

    def forward(self, metadata, dtype=torch.bfloat16):
        out = []
        for slot in self.slots:
            match slot:
                case Slot(kind="full", buf=b):
                    out.append(b.to(dtype))  # positive
                case Slot(buf=b, ids=ids):
                    out.append(b[ids].to(dtype))  # negative
        for row in self.rows:
            match row:
                case {"buf": t, "scale": s}:
                    out.append(t.half())  # positive
                    out.append(s.to(dtype))  # negative
        match self.halves[metadata.layer_idx]:
            case (k_half, _):
                out.append(k_half.float())  # positive
        return out
""",
    # f3: tuples of per-layer buffers concatenated, then indexed and sliced (TRT-LLM style)
    "tuple_concat_trtllm": """
import torch


class TwoModels:
    def __init__(self, target_mgr, draft_mgr, n_target, n_draft):
        target = tuple(target_mgr.get_buffers(i) for i in range(n_target))
        draft = tuple(draft_mgr.get_buffers(i) for i in range(n_draft))
        self.layers = target + draft
        self.first_draft = n_target
        self.n_draft = n_draft
        self.small = (torch.zeros(8),) * 2

    def forward(self, metadata, dtype=torch.bfloat16):
        d0 = self.layers[self.first_draft].to(dtype)  # positive
        tail = self.layers[self.first_draft : self.first_draft + self.n_draft]
        up = [t.float() for t in tail]  # positive
        s = self.small[0].to(torch.int64)  # negative
        g = self.layers[0][metadata.block_ids].to(dtype)  # negative
        helper = metadata.splitk.get_buffers(2, 16, 8, 64, "cuda")[0].float()  # negative
        return d0, up, s, g, helper
""",
    # f3: caches grouped in a defaultdict; a slice of the blocks of a (2, num_blocks, ...) cache is a window
    "grouped_window_vllm": """
from collections import defaultdict

import torch


class Runner:
    def initialize_kv_cache(self, config):
        self.groups = defaultdict(list)
        for gid, group in enumerate(config.groups):
            for _ in group.layer_names:
                t = torch.zeros((2, config.num_blocks, group.block_size, group.heads, group.head_size))
                self.groups[gid].append(t)

    def execute_model(self, scheduler_output, dtype=torch.bfloat16):
        first = self.groups[0][0].to(dtype)  # positive
        k_all = self.groups[0][0][0].float()  # positive
        every = self.groups[0][0][:, :].half()  # positive
        used = self.groups[0][0][:, : scheduler_output.num_blocks_used].to(dtype)  # negative
        picked = self.groups[0][0][:, scheduler_output.block_ids].to(dtype)  # negative
        return first, k_all, every, used, picked
""",
    # f2: a cast to the dtype a subclass passes its base's allocation (`super().__init__(..., dtype)`)
    "inherited_dtype_sglang": """
import torch


class PlanePool:
    def __init__(self, size, heads, dim, layers, dtype):
        self.k_buffer = [torch.zeros(size + 1, heads, dim, dtype=dtype) for _ in range(layers)]
        self.v_buffer = [torch.zeros(size + 1, heads, dim, dtype=dtype) for _ in range(layers)]

    def planes(self, layer_id):
        return self.k_buffer[layer_id], self.v_buffer[layer_id]


class E5M2Pool(PlanePool):
    def __init__(self, size, heads, dim, layers):
        super().__init__(size, heads, dim, layers, torch.float8_e5m2)


class Backend:
    def __init__(self, pool: E5M2Pool):
        self.pool = pool

    def forward_extend(self, q, k, v, layer, forward_batch):
        kb, vb = self.pool.planes(layer.layer_id)
        same = kb.to(torch.float8_e5m2)  # negative
        other = vb.to(torch.float8_e4m3fn)  # positive
        up = kb.float()  # positive
        return same, other, up
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


def test_get_buffers_with_other_arity_is_no_accessor():
    """sglang's SplitKBufferPool.get_buffers(split_k, tokens, h, d, device) is not TRT-LLM's."""
    from castlint.tables import Accessor

    row = TABLES.accessors["get_buffers"]
    assert isinstance(row, Accessor) and row.arity == 1 and row.receivers
