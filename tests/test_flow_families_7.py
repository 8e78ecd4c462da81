"""Issue 19, round 7 (families f3, f4), in sglang, vLLM and lmdeploy styles, each family in shapes other than
family_recall_6's: mutation methods of builtin containers (`extend` with an entry list's entry, a
container of containers filled by `self.groups[g].append(t)` / `d.setdefault(k, []).append(t)`,
`popitem`; rules/accessors.toml [containers] grow_*, item_methods, factory_dicts), dict views
(`MappingProxyType`, `items()` sorted or listed and unpacked), selection builtins that return an element
(`min`/`max` with `key=`; [containers] take_functions), structural pattern matching (class keyword and
positional patterns, mapping, sequence and star patterns bind parts of the subject), sequence
concatenation (`target + draft` of containers of caches) and `itertools.starmap` ([iteration]
star_apply). Each shape has look-alikes beside it (gathers, lengths, slots, device moves, reinterprets,
windows); the pruned analysis gives the whole file's findings."""

from __future__ import annotations

import pytest

from castlint.tables import load_tables
from marked_cases import FILLER
from marked_cases import check as _check

TABLES = load_tables()

CASES = {
    # mutation methods of builtin containers: extend with an entry, nested grows, popitem
    "extend_entry_list_lmdeploy": """
import torch


class Snapshot:
    def __init__(self, cache_engine, num_layers):
        self.cache_engine = cache_engine
        self.num_layers = num_layers

    def forward(self, query, attn_metadata):
        planes = []
        for i in range(self.num_layers):
            planes.extend(self.cache_engine.gpu_cache[i])
        first = planes[0].to(query.dtype)  # positive: layer 0's whole K cache
        dumped = [p.half() for p in planes]  # positive: every whole K and V cache
        rows = []
        for i in range(self.num_layers):
            rows.extend(self.cache_engine.gpu_cache[i][0][attn_metadata.block_offsets])
        picked = [r.to(query.dtype) for r in rows]  # negative: gathered blocks
        lens = []
        lens.extend(attn_metadata.q_seqlens)
        q32 = lens[0].to(torch.int32)  # negative: a length
        return first, dumped, picked, q32
""",
    "nested_groups_sglang": """
from collections import defaultdict

import torch


class GroupedBackend:
    def __init__(self, pool, layer_ids):
        self.by_kind = defaultdict(list)
        self.scratch = defaultdict(lambda: torch.zeros(8, dtype=torch.int32))
        for lid in layer_ids:
            self.by_kind[lid % 2].append(pool.get_key_buffer(lid))

    def forward_decode(self, q, k, v, layer, forward_batch):
        tail = self.by_kind[1][-1].to(q.dtype)  # positive: the last odd layer's whole key buffer
        for kind, members in self.by_kind.items():
            members[0].float()  # positive: each group's first whole key buffer
        mine = self.by_kind[layer.layer_id % 2][0][forward_batch.out_cache_loc].to(q.dtype)  # negative: gathered
        idx = self.scratch[0].to(torch.int64)  # negative: a small scratch tensor
        return tail, mine, idx


def grouped(pool, ids, dtype):
    local = {}
    for lid in ids:
        local.setdefault(lid % 2, []).append(pool.get_value_buffer(lid))
    return local
""",
    "popitem_stash_vllm": """
import torch


class Drainer:
    def __init__(self):
        self.kv_caches = {}
        self.pending = {}

    def register_kv_caches(self, kv_caches):
        self.kv_caches = kv_caches

    def wait_for_save(self):
        stash = dict(self.kv_caches)
        out = {}
        while stash:
            out.update([(stash.popitem()[0], None)])
        last = dict(self.kv_caches).popitem()[1].float()  # positive: some layer's whole cache
        todo = dict(self.pending)
        name, req = todo.popitem()
        r = req.to(torch.int64)  # negative: a request's slots
        return out, last, r

    def start_load_kv(self, forward_context, **kwargs):
        _, lane = dict(self.kv_caches).popitem()
        return lane.to(torch.bfloat16)  # positive: a whole layer cache unpacked from popitem
""",
    # dict views: a read-only proxy, items() sorted and unpacked
    "proxy_items_vllm": """
from types import MappingProxyType

import torch


class ReadOnlyExporter:
    def register_kv_caches(self, kv_caches):
        self.ro = MappingProxyType(kv_caches)
        self.meta = MappingProxyType({"slots": torch.zeros(4, dtype=torch.int32)})

    def save_kv_layer(self, layer_name, kv_layer, attn_metadata, **kwargs):
        items = list(self.ro.items())
        _, last = items[-1]
        a = last.float()  # positive: the last layer's whole cache
        b = self.ro[layer_name].to(torch.bfloat16)  # positive: this layer's whole cache through the proxy
        s = self.meta["slots"].to(torch.int64)  # negative: slots
        c = self.ro[layer_name].to("cpu")  # negative: a device move
        return a, b, s, c
""",
    # selection builtins that return an element
    "min_max_records_lmdeploy": """
from dataclasses import dataclass

import torch


@dataclass
class Slot:
    idx: int
    k: torch.Tensor
    v: torch.Tensor
    num_blocks_used: int


class SlotAttention(torch.nn.Module):
    def __init__(self, cache_engine, n):
        super().__init__()
        self.slots = [Slot(i, cache_engine.gpu_cache[i][0], cache_engine.gpu_cache[i][1], 0) for i in range(n)]

    def forward(self, query, attn_metadata):
        hi = max(self.slots, key=lambda s: s.idx)
        a = hi.k.to(query.dtype)  # positive: the max record's whole K cache
        b = min(self.slots, key=lambda s: s.idx).v.half()  # positive: the min record's whole V cache
        busy = max(self.slots, key=lambda s: s.num_blocks_used)
        c = busy.k[attn_metadata.block_offsets].to(query.dtype)  # negative: the blocks gathered first
        d = max(self.slots, key=lambda s: s.idx).idx
        return a, b, c, d
""",
    # structural pattern matching binds parts of the subject
    "match_class_mapping_sglang": """
from dataclasses import dataclass

import torch


@dataclass
class Plane:
    kind: str
    buf: torch.Tensor
    rows: torch.Tensor


class MatchBackend:
    def __init__(self, pool, num_layers):
        self.planes = [Plane("k", pool.get_key_buffer(i), torch.arange(4)) for i in range(num_layers)]
        self.tables = [{"buf": pool.get_value_buffer(i), "loc": torch.zeros(4)} for i in range(num_layers)]

    def forward_decode(self, q, k, v, layer, forward_batch):
        out = []
        for plane in self.planes:
            match plane:
                case Plane(kind="k", buf=b):
                    out.append(b.to(q.dtype))  # positive: the matched record's whole key buffer
                case Plane(_, whole, rows):
                    out.append(whole.float())  # positive: the record's buf by position
                    out.append(rows.to(torch.int64))  # negative: row ids
        for table in self.tables:
            match table:
                case {"buf": t, "loc": loc}:
                    out.append(t.half())  # positive: the mapping pattern binds the whole value buffer
                    out.append(loc.to(torch.int64))  # negative: locations
        return out
""",
    "match_sequence_vllm": """
import torch


class SeqImpl:
    def forward(self, layer, query, key, value, kv_cache, attn_metadata, output=None):
        match (kv_cache, attn_metadata.slot_mapping):
            case (cache, slots):
                dense = cache.to(query.dtype)  # positive: the whole kv_cache, bound by a sequence pattern
                s = slots.to(torch.int64)  # negative: slot mapping
        match [kv_cache, kv_cache]:
            case [first, *rest]:
                more = [r.float() for r in rest]  # positive: the rest of the list: whole caches
        return dense, s, more
""",
    # sequence concatenation and repetition
    "tuple_concat_sglang": """
import torch


class DraftBackend:
    def __init__(self, pool, draft_pool, n, m):
        target = tuple(pool.get_key_buffer(i) for i in range(n))
        draft = [draft_pool.get_key_buffer(i) for i in range(m)]
        self.all_layers = target + tuple(draft)
        self.heads = [pool.get_value_buffer(0)] + draft[:1]
        self.lens = (0,) + (n,)

    def forward_decode(self, q, k, v, layer, forward_batch):
        a = self.all_layers[layer.layer_id].to(q.dtype)  # positive: one whole key buffer of the concatenation
        b = [t.float() for t in self.all_layers[-2:]]  # positive: the last two whole key buffers
        c = self.heads[0].half()  # positive: the target's whole value buffer
        d = self.all_layers[0][forward_batch.out_cache_loc].to(q.dtype)  # negative: gathered first
        e = self.all_layers[1].view(torch.uint8)  # negative: a reinterpret
        return a, b, c, d, e, self.lens
""",
    # a function applied to each row's items
    "starmap_rows_vllm": """
import itertools
from itertools import starmap

import torch


class StarConnector:
    def register_kv_caches(self, kv_caches):
        self.kv_caches = kv_caches

    def wait_for_save(self):
        rows = [(t, torch.bfloat16) for t in self.kv_caches.values()]
        a = list(starmap(torch.Tensor.to, rows))  # positive: every whole layer cache through starmap
        moves = [(t, "cpu") for t in self.kv_caches.values()]
        b = list(itertools.starmap(torch.Tensor.to, moves))  # negative: device moves
        return a, b

    def save_kv_layer(self, layer_name, kv_layer, attn_metadata, **kwargs):
        slots = attn_metadata.slot_mapping
        ids = list(itertools.starmap(torch.Tensor.to, [(slots, torch.int64)]))  # negative: the slot mapping
        return ids
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
