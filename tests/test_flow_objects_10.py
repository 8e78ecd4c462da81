"""Value flow, round 10 (issue 19, families f1-f3): torch.nn containers (ModuleList, ModuleDict,
ParameterList, Sequential) of modules that allocate their layer's cache, register_buffer / nn.Buffer /
nn.Parameter as the allocation, Module.buffers() / named_buffers() / parameters(), a method called on an
object of unknown class reaching the one class that defines it, itertools.accumulate / pairwise /
groupby, heapq, attrs.asdict with keywords, UserDict subclasses, typing.cast, a dict attribute filled
in a setup method and read on another object, and an unannotated layer index taken from its callers.
Each shape has look-alikes beside it; the pruned analysis gives the whole file's findings."""

from __future__ import annotations

import pytest

from castlint.tables import load_tables
from marked_cases import FILLER
from marked_cases import check as _check

TABLES = load_tables()

CASES = {
    # f3: a ModuleList of modules, each allocating its layer's K/V on self (lmdeploy style)
    "modulelist_slots": """
import torch
import torch.nn as nn


class LayerKV(nn.Module):
    def __init__(self, num_blocks, block_size, heads, dim):
        super().__init__()
        self.key = torch.empty(num_blocks, block_size, heads, dim, dtype=torch.float8_e4m3fn)
        self.register_buffer("val", torch.empty(num_blocks, block_size, heads, dim, dtype=torch.float8_e4m3fn))
        self.scale = torch.ones(num_blocks, 1)


class SlotStore(nn.Module):
    def __init__(self, n_layers, num_blocks, block_size, heads, dim):
        super().__init__()
        self.per_layer = nn.ModuleList([LayerKV(num_blocks, block_size, heads, dim) for _ in range(n_layers)])

    def forward(self, i, query, block_ids):
        a = self.per_layer[i].key.to(query.dtype)  # positive
        b = [m.val.half() for m in self.per_layer]  # positive
        c = self.per_layer[-1].scale.float()  # negative
        d = self.per_layer[i].key[block_ids].to(query.dtype)  # negative
        return a, b, c, d
""",
    # f3: a ModuleDict keyed by layer name, a Sequential of the same modules
    "moduledict_sequential": """
import torch
from torch import nn


class Plane(nn.Module):
    def __init__(self, cache_shape):
        super().__init__()
        self.register_buffer("kv", torch.zeros(cache_shape, dtype=torch.float8_e5m2), persistent=False)


class Planes(nn.Module):
    def __init__(self, layer_names, cache_shape):
        super().__init__()
        self.by_name = nn.ModuleDict({n: Plane(cache_shape) for n in layer_names})
        self.chain = nn.Sequential(*[Plane(cache_shape) for _ in layer_names])

    def forward(self, name, query, batch_lens):
        x = self.by_name[name].kv.bfloat16()  # positive
        y = {k: p.kv.to(query.dtype) for k, p in self.by_name.items()}  # positive
        z = next(iter(self.by_name.values())).kv.float()  # positive
        w = self.chain[0].kv.half()  # positive
        n = batch_lens.to(torch.int32)  # negative
        return x, y, z, w, n
""",
    # f3: nn.Buffer under computed names, read back through named_buffers() and buffers()
    "named_buffers": """
import torch
from torch import nn


class LatentPool(nn.Module):
    def __init__(self, num_layers, size, width):
        super().__init__()
        for layer in range(num_layers):
            setattr(self, f"lat_{layer}", nn.Buffer(torch.zeros(size, 1, width, dtype=torch.float8_e4m3fn)))


class Scratch(nn.Module):
    def __init__(self):
        super().__init__()
        self.register_buffer("tmp", torch.zeros(16, 4))


class Reader:
    def __init__(self, pool: LatentPool, scratch: Scratch):
        self.pool = pool
        self.scratch = scratch

    def forward_decode(self, q, k, v, layer, forward_batch):
        table = dict(self.pool.named_buffers())
        a = table[f"lat_{layer.layer_id}"].to(q.dtype)  # positive
        b = [t.float() for t in self.pool.buffers()]  # positive
        c = [t.float() for t in self.scratch.buffers()]  # negative
        return a, b, c
""",
    # f3: a ParameterList of wrapped allocations, .data / .detach() and parameters()
    "parameterlist": """
import torch
from torch import nn


class Runner(nn.Module):
    def __init__(self, num_layers, num_blocks, width):
        super().__init__()
        self.caches = nn.ParameterList(
            [nn.Parameter(torch.empty(num_blocks, width, dtype=torch.float8_e4m3fn), requires_grad=False)
             for _ in range(num_layers)]
        )

    def execute_model(self, scheduler_output, slots):
        a = self.caches[1].data.half()  # positive
        b = [p.detach().to(torch.bfloat16) for p in self.caches.parameters()]  # positive
        c = self.caches[0][slots].half()  # negative
        return a, b, c
""",
    # f2: a method bound on a base module, called on objects of unknown class
    "duck_bind": """
import torch
from torch import nn


class AttnBase(nn.Module):
    def __init__(self):
        super().__init__()
        self.k_store = None
        self.lens = None

    def attach(self, k_store, lens):
        self.k_store = k_store
        self.lens = lens


class FP8Attn(AttnBase):
    def forward(self, query, key, value, attn_metadata):
        a = self.k_store.to(query.dtype)  # positive
        b = self.lens.to(torch.int64)  # negative
        return a, b


def wire(layers, engine, seq_lens):
    for i, mod in enumerate(layers):
        mod.attach(engine.gpu_cache[i][0], seq_lens)
""",
    # f3: itertools over lists of layers
    "itertools_layers": """
import itertools

import torch


class Backend:
    def __init__(self, model_runner):
        self.pool = model_runner.token_to_kv_pool

    def forward_extend(self, q, k, v, layer, forward_batch):
        runs = list(itertools.accumulate([[t] for t in self.pool.v_buffer]))
        a = [t.half() for t in runs[-1]]  # positive
        b = [y.float() for x, y in itertools.pairwise(self.pool.k_buffer)]  # positive
        tagged = sorted(zip(forward_batch.groups, self.pool.k_buffer), key=lambda p: p[0])
        c = {g: [p[1].to(q.dtype) for p in ps] for g, ps in itertools.groupby(tagged, key=lambda p: p[0])}  # positive
        d = torch.tensor(list(itertools.accumulate(forward_batch.extend_seq_lens_cpu)), dtype=torch.int64)  # negative
        e = [y.float() for x, y in itertools.pairwise(forward_batch.seq_lens)]  # negative
        return a, b, c, d, e
""",
    # f3: heapq holds (order, tensor) entries; bisect.insort too
    "heap_entries": """
import bisect
import heapq

import torch


class Ordered:
    def __init__(self):
        self.heap = []
        self.sorted = []
        self.small = []

    def register_kv_caches(self, kv_caches):
        for i, (name, t) in enumerate(kv_caches.items()):
            heapq.heappush(self.heap, (i, t))
            bisect.insort(self.sorted, (i, t))
            heapq.heappush(self.small, (i, torch.zeros(4)))

    def start_load_kv(self, forward_context, **kwargs):
        a = heapq.heappop(self.heap)[1].half()  # positive
        b = heapq.nsmallest(2, self.sorted)[0][1].float()  # positive
        c = self.small[0][1].float()  # negative
        return a, b, c
""",
    # f3: attrs/dataclasses as-dict with keyword options; a UserDict subclass
    "asdict_userdict": """
from collections import UserDict
import dataclasses

import attrs
import torch


@attrs.define
class Pair:
    k: torch.Tensor
    n: int = 0


class Layers(UserDict):
    def one(self, key):
        return self.data[key]


class Impl:
    def __init__(self):
        self.layers = Layers()
        self.sizes = Layers()

    def register_kv_caches(self, kv_caches):
        self.layers.update(kv_caches)
        self.sizes.update({n: t.shape[0] for n, t in kv_caches.items()})

    def forward(self, layer, query, key, value, kv_cache, attn_metadata, output=None):
        rec = Pair(k=kv_cache, n=1)
        a = attrs.asdict(rec, recurse=False)["k"].half()  # positive
        b = self.layers.one(layer.layer_name).to(query.dtype)  # positive
        c = attn_metadata.slot_mapping.long()  # negative
        return a, b, c
""",
    # f1: typing.cast, with a type or a string
    "typing_cast": """
import typing
from typing import cast

import torch


class Backend:
    def __init__(self, model_runner):
        self.model_runner = model_runner

    def forward_decode(self, q, k, v, layer, forward_batch):
        pool = cast("MLATokenToKVPool", self.model_runner.token_to_kv_pool)
        a = typing.cast(torch.Tensor, pool.get_key_buffer(layer.layer_id)).to(q.dtype)  # positive
        b = cast(torch.Tensor, forward_batch.out_cache_loc).to(torch.int32)  # negative
        c = cast(torch.Tensor, k).to(q.dtype)  # negative
        return a, b, c
""",
    # f1: a dict attribute filled in a setup method, read on self and on another object
    "held_dict": """
import torch


class Runner:
    def __init__(self, model_runner):
        self.model_runner = model_runner
        self.saved = {}
        self.lens = {}

    def capture(self, layer_ids):
        pool = self.model_runner.token_to_kv_pool
        for lid in layer_ids:
            self.saved[lid] = pool.get_value_buffer(lid)
            self.lens[lid] = torch.zeros(8, dtype=torch.int32)

    def replay(self, q, lid):
        return self.saved[lid].to(q.dtype)  # positive


class User:
    def __init__(self, runner):
        self.runner = runner

    def forward_decode(self, q, k, v, layer, forward_batch):
        a = self.runner.saved[layer.layer_id].float()  # positive
        b = self.runner.lens[layer.layer_id].long()  # negative
        return a, b
""",
    # f2: an override that gathers, its layer index only ever a scalar from its callers (TRT-LLM)
    "index_from_callers": """
import torch


class Whole:
    def __init__(self, manager):
        self.manager = manager

    def get_buffers(self, idx):
        return self.manager.get_buffers(idx)


class Rows:
    def __init__(self, manager, rows):
        self.manager = manager
        self.rows = rows

    def get_buffers(self, idx):
        return self.manager.get_buffers(idx)[self.rows]


class Attn:
    def __init__(self, layer_idx, whole: Whole, rows: Rows):
        self.layer_idx = layer_idx
        self.whole = whole
        self.rows = rows

    def forward(self, q, k, v, metadata):
        a = self.whole.get_buffers(self.layer_idx).to(q.dtype)  # positive
        b = self.rows.get_buffers(self.layer_idx).to(q.dtype)  # negative
        return a, b
""",
    # f1: a per-step context stored on the batch object in one method, read in another (sglang style)
    "param_attr_store": """
from dataclasses import dataclass

import torch


@dataclass
class Holder:
    planes: list
    lens: list


class Backend:
    def __init__(self, model_runner):
        self.pool = model_runner.token_to_kv_pool

    def init_forward_metadata(self, forward_batch):
        forward_batch.ctx = Holder(self.pool.k_buffer, [forward_batch.seq_lens])
        forward_batch.note = forward_batch.seq_lens

    def forward_decode(self, q, k, v, layer, forward_batch):
        c = forward_batch.ctx
        a = c.planes[layer.layer_id].to(q.dtype)  # positive
        b = c.lens[0].to(torch.int32)  # negative
        n = forward_batch.note.long()  # negative
        return a, b, n
""",
    # f1: an attribute stored on an instance after it is made, read through a record-typed duck
    "instance_attr_store": """
from dataclasses import dataclass
from typing import Optional

import torch


@dataclass
class StepMeta:
    slot_mapping: torch.Tensor
    layer_ref: Optional[torch.Tensor] = None


class Builder:
    def __init__(self, model_runner):
        self.pool = model_runner.token_to_kv_pool

    def build(self, common, layer_id):
        md = StepMeta(common.slot_mapping)
        md.layer_ref = self.pool.get_key_buffer(layer_id)
        return md


class Impl:
    def forward(self, q, layer, meta):
        a = meta.layer_ref.to(q.dtype)  # positive
        b = meta.slot_mapping.long()  # negative
        return a, b
""",
    # f1: vLLM's kv_caches, handed on by the engine (no visible caller)
    "kv_caches_param": """
import torch


class Store:
    def __init__(self, kv_caches):
        self._caches = kv_caches

    def layer(self, idx):
        return self._caches[idx]


class Impl:
    def __init__(self, kv_caches, layer_idx, seq_lens):
        self.store = Store(kv_caches)
        self.lens = Store(seq_lens)
        self.layer_idx = layer_idx

    def forward(self, layer, query, key, value, kv_cache, attn_metadata, output=None):
        a = self.store.layer(self.layer_idx).to(query.dtype)  # positive
        b = self.lens.layer(0).to(torch.int32)  # negative
        return a, b
""",
    # f2: a class-level registry filled through a classmethod once per layer, read by a subclass
    "classmethod_registry": """
import torch


class Shared:
    _bufs = {}
    _lens = {}

    @classmethod
    def put(cls, idx, buf, lens):
        cls._bufs[idx] = buf
        cls._lens[idx] = lens

    @classmethod
    def take(cls, idx):
        return cls._bufs[idx]

    @classmethod
    def take_lens(cls, idx):
        return cls._lens[idx]


class Manager:
    def __init__(self, num_layers, num_blocks, heads, dim, max_bs):
        for layer in range(num_layers):
            Shared.put(layer, torch.empty(num_blocks, 2, heads, dim, dtype=torch.float8_e4m3fn), torch.zeros(max_bs))


class Attn(Shared):
    def __init__(self, layer_idx):
        self.layer_idx = layer_idx

    def forward(self, q, k, v, metadata):
        a = self.take(self.layer_idx).to(torch.bfloat16)  # positive
        b = type(self).take(self.layer_idx)[:, 0].half()  # positive
        c = self.take_lens(self.layer_idx).long()  # negative
        return a, b, c
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


def test_modules_built_once_are_no_layer_pools(tmp_path):
    """A module allocating on self that is built once (not per element) holds no layer's pool."""
    path = tmp_path / "once.py"
    path.write_text(
        """
import torch
from torch import nn


class Staging(nn.Module):
    def __init__(self, num_blocks, width):
        super().__init__()
        self.register_buffer("stage", torch.empty(num_blocks, width, dtype=torch.bfloat16))


class Impl(nn.Module):
    def __init__(self, num_blocks, width):
        super().__init__()
        self.staging = Staging(num_blocks, width)

    def forward(self, query):
        return self.staging.stage.to(query.dtype)
"""
    )
    assert _check(path, False) == []
    assert _check(path, True) == []
