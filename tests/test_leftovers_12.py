"""Issue 19, round 12 leftovers: registry lookups keyed by an enum member or a constant (the key's name and
its value both spell the manager, whole file and pruned alike), stdlib container wrappers whose `self.data`
is the instance's contents, helpers whose return is read per call site with the call's own arguments,
constructor parameters' elements followed through the construction, and cross-module shapes under
`follow-imports = "uses"`. Each positive has look-alikes beside it; the pruned analysis gives the whole
file's findings, with and without filler."""

from __future__ import annotations

import pytest

from castlint.tables import load_tables
from marked_cases import FILLER
from marked_cases import check as _check
from test_call_indirection_11 import _findings, _marked, _own_tree_cache  # noqa: F401

TABLES = load_tables()

CASES = {
    "enum_keyed_manager_trtllm": """\
import enum

import torch


class ResourceManagerType(enum.Enum):
    KV_CACHE_MANAGER = "kv"
    DRAFT_KV_CACHE_MANAGER = "draft_kv"
    SEQ_SLOT_MANAGER = "seq_slot"


class ResourceManager:
    def __init__(self, managers):
        self.resource_managers = dict(managers)

    def get_resource_manager(self, kind):
        return self.resource_managers.get(kind)


class Eagle3DraftEngine:
    def __init__(self, layer_ids):
        self.layer_ids = layer_ids

    def forward(self, scheduled_requests, resource_manager, dtype=torch.bfloat16):
        draft = resource_manager.get_resource_manager(ResourceManagerType.DRAFT_KV_CACHE_MANAGER)
        target = resource_manager.get_resource_manager(ResourceManagerType.KV_CACHE_MANAGER)
        d0 = draft.get_buffers(self.layer_ids[0]).to(dtype)  # positive: CL001 a draft layer's whole buffer
        t_last = target.get_buffers(self.layer_ids[-1])[:, 1].float()  # positive: CL001 V half
        slots = resource_manager.get_resource_manager(ResourceManagerType.SEQ_SLOT_MANAGER)
        seq = torch.tensor(slots.get_slots(scheduled_requests), dtype=torch.int32)  # negative: sequence slots
        picked = draft.get_batch_cache_indices(scheduled_requests)[0]
        rows = draft.get_buffers(self.layer_ids[0])[picked].to(dtype)  # negative: gather-then-cast
        return d0, t_last, seq, rows
""",
    "enum_value_keyed_manager": """\
import enum

import torch


class Kind(enum.Enum):
    MAIN = "kv_cache_manager"
    SPEC = "draft_kv_cache_manager"
    SLOTS = "seq_slot_manager"


class Registry:
    def __init__(self, managers):
        self._by_kind = {k: m for k, m in managers}

    def get_resource_manager(self, kind):
        return self._by_kind[kind]


def step(registry, layers, ids, dtype):
    spec = registry.get_resource_manager(Kind.SPEC)
    whole = spec.get_buffers(layers[0]).to(dtype)  # positive: CL001
    slots = registry.get_resource_manager(Kind.SLOTS)
    rows = torch.as_tensor(slots.get_slots(ids), dtype=torch.int64)  # negative: slot ids
    return whole, rows
""",
    "constant_keyed_manager": """\
import torch

MAIN_KEY = "kv_cache_manager"


class Keys:
    DRAFT = "draft_kv_cache_manager"


class Engine:
    def __init__(self, layer_ids):
        self.layer_ids = layer_ids

    def run(self, rm, batch, dtype=torch.float16):
        main = rm.get_resource_manager(MAIN_KEY)
        draft = rm.get_resource_manager(Keys.DRAFT)
        a = main.get_buffers(self.layer_ids[-1]).float()  # positive: CL001
        b = draft.get_buffers(self.layer_ids[0])[:, 0].to(dtype)  # positive: CL001
        c = main.get_buffers(self.layer_ids[0])[main.block_ids(batch)].float()  # negative: gathered
        d = rm.get_resource_manager("spec_decoding_manager").get_draft_lens(batch).float()  # negative: lengths
        return a, b, c, d
""",
    "user_dict_table_vllm": """\
from collections import UserDict, UserList

import torch


class LayerTable(UserDict):
    def plane(self, name):
        return self.data[name]

    def planes(self):
        return [self[k] for k in self]


class StepLens(UserList):
    def at(self, i):
        return self.data[i]


class TableBackend:
    def __init__(self, runner):
        self.gpu_cache = LayerTable()
        self.gpu_cache.update(runner.kv_caches)
        self.lens = StepLens()
        self.lens.append(torch.zeros(8, dtype=torch.int32))

    def forward(self, query, attn_metadata):
        k = self.gpu_cache.plane("layers.0.attn").to(query.dtype)  # positive: CL001
        every = [p.float() for p in self.gpu_cache.planes()]  # positive: CL001
        n = self.lens.at(0).to(torch.int64)  # negative: lengths
        rows = self.gpu_cache.plane("layers.1.attn")[attn_metadata.slot_mapping].to(query.dtype)  # negative: gathered
        return k, every, n, rows
""",
    "user_list_self_items_vllm": """\
import collections

import torch


class Caches(collections.UserList):
    def newest(self):
        return self[-1]

    def each(self):
        yield from self


class Offsets(collections.UserList):
    def newest(self):
        return self[-1]


class Worker:
    def __init__(self, num_blocks, layers):
        self.kv_caches = Caches()
        self.kv_caches.extend(torch.empty(2, num_blocks, 16, 8, 64, dtype=torch.float8_e4m3fn) for _ in range(layers))
        self.offsets = Offsets([torch.arange(16)])

    def execute_model(self, dtype):
        a = self.kv_caches.newest().to(dtype)  # positive: CL001
        b = [c.half() for c in self.kv_caches.each()]  # positive: CL001
        o = self.offsets.newest().to(torch.int64)  # negative: offsets
        return a, b, o
""",
    "getitem_path_per_call_lmdeploy": """\
import operator
from functools import reduce

import torch


def dig(root, *keys):
    return reduce(operator.getitem, keys, root)


class NestedStore:
    def __init__(self, kv_caches, num_seqs):
        lens = torch.zeros(num_seqs, dtype=torch.int32)
        self.tree = {"kv": {"k": kv_caches[0], "v": kv_caches[1]}, "seq": {"lens": lens}}

    def fetch(self, *path):
        return reduce(operator.getitem, path, self.tree)

    def forward(self, query, metadata):
        k = self.fetch("kv", "k").to(query.dtype)  # positive: CL001
        v = dig(self.tree, "kv", "v").float()  # positive: CL001
        lens = self.fetch("seq", "lens").to(torch.int64)  # negative: lengths
        n = dig(self.tree, "seq", "lens").long()  # negative: lengths by a module helper
        rows = self.fetch("kv", "k")[metadata.block_ids].to(query.dtype)  # negative: gathered
        return k, v, lens, n, rows
""",
    "stage_tuples_through_constructor_sglang": """\
import torch


class Stages:
    def __init__(self, stages):
        self.starts = [start for start, _ in stages]
        self.buffers = [bufs for _, bufs in stages]


class StagedBackend:
    def __init__(self, pool):
        half = len(pool.k_buffer) // 2
        first, second = torch.tensor(0), torch.tensor(half)
        self.stages = Stages([(first, pool.k_buffer[:half]), (second, pool.k_buffer[half:])])

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        whole = self.stages.buffers[1][0].to(q.dtype)  # positive: CL001
        start = self.stages.starts[1].to(torch.int64)  # negative: a stage's first layer
        return whole, start
""",
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_marked_lines(tmp_path, name):
    path = tmp_path / f"{name}.py"
    path.write_text(CASES[name])
    lines = CASES[name].splitlines()
    found = {(code, line) for code, line, _ in _check(path, False)}
    positives = {
        (text.split("# positive: ")[1].split()[0], i) for i, text in enumerate(lines, 1) if "# positive" in text
    }
    negatives = {i for i, text in enumerate(lines, 1) if "# negative" in text}
    assert positives and negatives
    assert positives - found == set()
    assert {line for _, line in found} & negatives == set()


@pytest.mark.parametrize("name", sorted(CASES))
@pytest.mark.parametrize("filler", [False, True], ids=["as-is", "with-filler"])
def test_pruned_is_whole(tmp_path, name, filler):
    path = tmp_path / f"{name}.py"
    path.write_text(CASES[name] + (FILLER if filler else ""))
    assert _check(path, True) == _check(path, False)
