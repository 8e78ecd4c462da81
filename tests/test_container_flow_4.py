"""Values through containers (family f3, round 4): container constructors that keep their
elements by qualified name (`collections.deque`), methods that return one element or all of
them (`get`, `setdefault`, `pop`, `popleft`, `values`), `next(iter(...))`, dict subscripts by a
key of any kind, records made with attrs and records whose starred argument is not last
(rules/accessors.toml [containers], [records]). Each shape has a look-alike beside it; the
pruned analysis gives the whole file's findings."""

from __future__ import annotations

import pytest

from castlint.tables import load_tables
from marked_cases import FILLER
from marked_cases import check as _check

TABLES = load_tables()

CASES = {
    "deque": """
import collections
import torch


class RingBackend:
    def __init__(self, model_runner):
        pool = model_runner.token_to_kv_pool
        self.lanes = collections.deque(pool.v_buffer)
        self.locs = collections.deque(maxlen=8)
        self.queue = collections.deque()

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        self.locs.append(forward_batch.out_cache_loc)
        a = self.lanes[layer.layer_id].float()  # positive
        b = self.locs[-1].to(torch.int64)  # negative
        c = list(self.lanes)[layer.layer_id].half()  # positive
        self.queue.append((layer.layer_id, self.lanes[layer.layer_id]))
        lid, buf = self.queue.popleft()
        d = buf.to(q.dtype)  # positive
        e = self.lanes[layer.layer_id][forward_batch.out_cache_loc].float()  # negative
        return a, b, c, d, e, lid
""",
    "dict_methods": """
import torch


class TableRunner:
    def __init__(self, device, n):
        self.kv_caches: dict[str, torch.Tensor] = {}
        self.names: list[str] = []
        self.lens: dict[str, torch.Tensor] = {}
        self.n = n

    def execute_model(self, scheduler_output, intermediate_tensors=None):
        got = self.kv_caches.get(self.names[0])
        a = got.float()  # positive
        b = next(iter(self.kv_caches.values())).half()  # positive
        c = self.lens.setdefault("x", torch.zeros(self.n, dtype=torch.int32)).to(torch.int64)  # negative
        d = self.kv_caches.pop(self.names[1]).bfloat16()  # positive
        e = self.lens.get(self.names[0]).long()  # negative
        return a, b, c, d, e
""",
    "dict_by_key": """
import torch


class KeyedRunner:
    def __init__(self, device):
        self.kv_caches: list[torch.Tensor] = []
        self.by_name: dict[str, torch.Tensor] = {}
        self.rows = []
        self.names = []

    def bind(self, names):
        self.names = names
        self.by_name = dict(zip(names, self.kv_caches))

    def execute_model(self, scheduler_output, intermediate_tensors=None):
        key = self.names[scheduler_output.layer]
        a = self.by_name[key].to(torch.float32)  # positive
        b = self.kv_caches[self.names[scheduler_output.layer]].to(torch.float32)  # negative: a list, not a dict
        return a, b
""",
    "attrs_record": """
import attr
import torch


@attr.s(slots=True)
class Slab:
    kv = attr.ib()
    ids = attr.ib()


class SlabAttention:
    def __init__(self, layer_idx, kv_cache_manager):
        self.layer_idx = layer_idx
        self.slab = Slab(kv=kv_cache_manager.get_buffers(layer_idx), ids=torch.zeros(4, dtype=torch.int32))

    def forward(self, q, k, v, metadata, **kwargs):
        a = self.slab.kv.to(q.dtype)  # positive
        b = self.slab.ids.to(torch.int64)  # negative
        return a, b
""",
    "starred_record": """
from typing import NamedTuple, Optional

import torch


class Rec(NamedTuple):
    k: torch.Tensor
    v: torch.Tensor
    loc: Optional[torch.Tensor]


class RecBackend:
    def forward_extend(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        pool = forward_batch.token_to_kv_pool
        rec = Rec(*pool.get_kv_buffer(layer.layer_id), forward_batch.out_cache_loc)
        a = rec.v.to(q.dtype)  # positive
        b = rec.loc.to(torch.int64)  # negative
        return a, b
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
