"""Values through records and containers (family f3, round 5), in sglang, vLLM, lmdeploy and
TRT-LLM styles: copies of a record with fields replaced (`_replace`, `dataclasses.replace`,
`attr.evolve`) keep the original's other fields and take the keyword's value for the replaced
one; dicts and tuples of a record's fields (`_asdict()`, `dataclasses.asdict`, `vars()`,
`__dict__`, `dataclasses.astuple`); records nested in records, containers of records, records
of containers; dict items unpacked in loops; zip, enumerate, reversed and sorted over caches; dict
comprehensions keyed by layer names; `dict.update`; `operator.itemgetter`; starred unpacking;
NamedTuple defaults, frozen dataclasses with `field(default_factory=...)`, slots classes
(rules/accessors.toml [records], [containers], [iteration]). Each shape has look-alikes beside
it (records of scales, of index and batch tensors, containers of per-request state, a field
replaced by gathered rows); the pruned analysis gives the whole file's findings."""

from __future__ import annotations

import pytest

from castlint.tables import load_tables
from marked_cases import FILLER
from marked_cases import check as _check

TABLES = load_tables()

CASES = {
    "replace_dataclass_sglang": """
import dataclasses
from dataclasses import dataclass, replace

import torch


@dataclass
class LayerView:
    keys: torch.Tensor
    values: torch.Tensor
    scale: float = 1.0


class ViewBackend:
    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        pool = forward_batch.token_to_kv_pool
        view = LayerView(pool.get_key_buffer(layer.layer_id), pool.get_value_buffer(layer.layer_id))
        scaled = dataclasses.replace(view, scale=0.5)
        a = scaled.keys.to(q.dtype)  # positive: replace of scale keeps the key pool
        picked = replace(view, values=view.values[forward_batch.out_cache_loc])
        b = picked.values.to(q.dtype)  # negative: the replaced field holds gathered rows
        c = picked.keys.half()  # positive: the field not replaced is still the whole key pool
        batch = LayerView(k, v)
        d = replace(batch, scale=2.0).keys.to(torch.float32)  # negative: a record of batch tensors
        return a, b, c, d
""",
    "evolve_attrs_trtllm": """
import attr
import torch


@attr.s(frozen=True, slots=True)
class Slot:
    buf = attr.ib()
    offsets = attr.ib()
    tag = attr.ib(default="kv")


class EvolveAttention:
    def __init__(self, layer_idx, kv_cache_manager):
        self.layer_idx = layer_idx
        self.slot = Slot(buf=kv_cache_manager.get_buffers(layer_idx), offsets=torch.zeros(8, dtype=torch.int32))

    def forward(self, q, k, v, metadata, **kwargs):
        moved = attr.evolve(self.slot, offsets=metadata.offsets)
        a = moved.buf.to(q.dtype)  # positive: evolve kept the manager's buffer
        b = moved.offsets.to(torch.int64)  # negative: offsets replaced by the step's metadata
        swapped = attr.evolve(self.slot, buf=self.slot.buf[metadata.block_ids])
        c = swapped.buf.float()  # negative: buf replaced by gathered blocks
        return a, b, c
""",
    "replace_namedtuple_lmdeploy": """
from typing import NamedTuple, Optional

import torch


class CachePair(NamedTuple):
    k_cache: torch.Tensor
    v_cache: torch.Tensor
    offsets: Optional[torch.Tensor] = None


class PairImpl:
    def forward(self, query, key, value, k_cache, v_cache, attn_metadata):
        pair = CachePair(k_cache, v_cache)
        moved = pair._replace(offsets=attn_metadata.q_start_loc)
        kc, vc, off = moved
        a = kc.to(query.dtype)  # positive: unpacked from a copy that kept the key cache
        b = off.to(torch.int64)  # negative: the offsets field
        c = moved[1].half()  # positive: the value cache by position
        gathered = pair._replace(v_cache=pair.v_cache[attn_metadata.block_offsets])
        d = gathered[1].half()  # negative: replaced by gathered blocks
        e = CachePair(key, value).k_cache.float()  # negative: a record of batch tensors
        return a, b, c, d, e
""",
    "as_dict_sglang": """
import dataclasses
from dataclasses import dataclass
from typing import NamedTuple

import torch


@dataclass
class Planes:
    k: torch.Tensor
    v: torch.Tensor
    k_scale: torch.Tensor


class Pair(NamedTuple):
    k: torch.Tensor
    v: torch.Tensor


class DictBackend:
    def forward_extend(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        pool = forward_batch.token_to_kv_pool
        planes = Planes(pool.get_key_buffer(layer.layer_id), pool.get_value_buffer(layer.layer_id), layer.k_scale)
        a = dataclasses.asdict(planes)["v"].to(q.dtype)  # positive: the value pool by field name
        fields = vars(planes)
        b = fields["k"].bfloat16()  # positive: vars() of the record, the key pool
        c = fields["k_scale"].float()  # negative: a scale field
        d = planes.__dict__["v"].half()  # positive: __dict__ entry, the value pool
        pair = Pair(*pool.get_kv_buffer(layer.layer_id))
        e = pair._asdict().get("k").float()  # positive: _asdict().get of the key pool
        g = dataclasses.astuple(planes)[1].half()  # positive: astuple by position
        h = dataclasses.astuple(planes)[2].half()  # negative: the scale by position
        small = Pair(k, v)
        i = small._asdict()["v"].float()  # negative: a record of batch tensors
        return a, b, c, d, e, g, h, i
""",
    "nested_records_vllm": """
from dataclasses import dataclass, field

import torch


@dataclass(frozen=True)
class LayerCache:
    cache: torch.Tensor
    block_table: torch.Tensor


@dataclass(frozen=True)
class Step:
    layers: list = field(default_factory=list)
    state: dict = field(default_factory=dict)


class NestedRunner:
    def __init__(self, vllm_config, device):
        self.device = device
        self.kv_caches: list[torch.Tensor] = []
        self.step = Step()

    def bind(self, n):
        tables = [torch.zeros((64, 16), dtype=torch.int32) for _ in range(n)]
        self.step = Step(layers=[LayerCache(c, t) for c, t in zip(self.kv_caches, tables)], state={"seq": tables[0]})

    def execute_model(self, scheduler_output, intermediate_tensors=None):
        entry = self.step.layers[scheduler_output.layer]
        a = entry.cache.to(torch.float32)  # positive: a record in a container in a record
        b = entry.block_table.to(torch.int64)  # negative: the block table field
        c = self.step.state["seq"].long()  # negative: per-request state
        d = [lc.cache for lc in self.step.layers][0].half()  # positive: a comprehension over the records
        return a, b, c, d
""",
    "record_of_containers_trtllm": """
from dataclasses import dataclass

import torch


@dataclass
class Pools:
    primaries: list
    offsets: list


class ManagerAttention:
    def __init__(self, kv_cache_manager, num_layers):
        self.pools = Pools(
            primaries=[kv_cache_manager.get_buffers(i) for i in range(num_layers)],
            offsets=[torch.zeros(16, dtype=torch.int32) for _ in range(num_layers)],
        )
        self.layer_idx = 0

    def forward(self, q, k, v, metadata, **kwargs):
        a = self.pools.primaries[self.layer_idx].to(q.dtype)  # positive: a list field of whole buffers
        b = self.pools.offsets[self.layer_idx].to(torch.int64)  # negative: the offsets list
        for i, buf in enumerate(self.pools.primaries):
            if i == self.layer_idx:
                c = buf.bfloat16()  # positive: enumerate over the list field
        d = self.pools.primaries[self.layer_idx][metadata.block_ids].float()  # negative: gathered first
        return a, b, c, d
""",
    "items_loops_vllm": """
import torch


class ItemsConnector:
    def register_kv_caches(self, kv_caches: dict[str, torch.Tensor]):
        self.caches = kv_caches
        self.slots: dict[str, torch.Tensor] = {}

    def save_kv_layer(self, layer_name, kv_layer, attn_metadata, **kwargs):
        for name, cache in self.caches.items():
            if name == layer_name:
                a = cache.to(torch.float16)  # positive: a value of the registered caches
        for name, slot in self.slots.items():
            b = slot.to(torch.int64)  # negative: per-request slots
        for name, cache in sorted(self.caches.items()):
            c = cache.half()  # positive: sorted items
        for i, (name, cache) in enumerate(reversed(list(self.caches.items()))):
            d = cache.float()  # positive: enumerate over reversed items
        return a, b, c, d
""",
    "dict_comp_update_sglang": """
import torch


class NamedBackend:
    def __init__(self, model_runner):
        pool = model_runner.token_to_kv_pool
        names = [f"layers.{i}.attn" for i in range(model_runner.num_layers)]
        self.k_by_name = {n: pool.get_key_buffer(i) for i, n in enumerate(names)}
        self.v_by_name = {}
        self.v_by_name.update({n: pool.get_value_buffer(i) for i, n in enumerate(names)})
        self.lens = {}
        self.lens.update({n: torch.zeros(8, dtype=torch.int32) for n in names})
        self.extra = {}
        self.extra.update(dict(zip(names, pool.k_buffer)))

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        name = f"layers.{layer.layer_id}.attn"
        a = self.k_by_name[name].to(q.dtype)  # positive: comprehension keyed by layer name
        b = self.v_by_name[name].to(q.dtype)  # positive: filled by update
        c = self.lens[name].to(torch.int64)  # negative: per-request lengths
        d = self.extra[name].half()  # positive: update with dict(zip(names, caches))
        return a, b, c, d
""",
    "itemgetter_starred_lmdeploy": """
import operator

import torch


class GetterImpl:
    def __init__(self, cache_engine):
        self.gpu_caches = cache_engine.gpu_cache
        self.pick = operator.itemgetter(0)
        self.seqs = [torch.zeros(4, dtype=torch.int32)]

    def forward(self, query, key, value, past_key_value, attn_metadata):
        first, *rest = self.gpu_caches
        a = first.to(query.dtype)  # positive: the first of a starred unpacking
        b = rest[0].half()  # positive: a starred target holds the other whole caches
        k_cache, *_ = past_key_value
        c = k_cache.float()  # positive: the key cache of the layer's pair
        d = self.pick(self.gpu_caches).bfloat16()  # positive: itemgetter of a list of caches
        e = self.pick(self.seqs).long()  # negative: itemgetter of per-request state
        head, *tail = key, value
        f = head.float()  # negative: batch tensors
        return a, b, c, d, e, f
""",
    "namedtuple_defaults_slots_sglang": """
from dataclasses import dataclass, field
from typing import NamedTuple

import torch


class KV(NamedTuple):
    k: torch.Tensor
    v: torch.Tensor
    scale: float = 1.0
    loc: torch.Tensor = None


@dataclass(slots=True, frozen=True)
class Bundle:
    kv: KV
    extra: list = field(default_factory=list)


class SlotsBackend:
    __slots__ = ("pool", "scales")

    def __init__(self, model_runner):
        self.pool = model_runner.token_to_kv_pool
        self.scales = KV(torch.ones(1), torch.ones(1))

    def forward_extend(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        kv = KV(*self.pool.get_kv_buffer(layer.layer_id))
        bundle = Bundle(kv)
        a = bundle.kv.v.to(q.dtype)  # positive: a record in a record
        b = kv.loc.long() if kv.loc is not None else None  # negative: a defaulted field
        c = self.scales.k.float()  # negative: a record of scales
        d = Bundle(KV(k, v)).kv.k.half()  # negative: a record of batch tensors
        e = bundle.kv[0].bfloat16()  # positive: by position in a nested record
        return a, b, c, d, e
""",
    "per_request_negatives_trtllm": """
from dataclasses import dataclass, replace

import torch


@dataclass
class ReqState:
    positions: torch.Tensor
    block_ids: torch.Tensor


class StateAttention:
    def __init__(self, kv_cache_manager, max_batch):
        self.manager = kv_cache_manager
        self.states = [ReqState(torch.zeros(max_batch, dtype=torch.int32), torch.zeros(max_batch, dtype=torch.int32))]
        self.history = {}

    def forward(self, q, k, v, metadata, **kwargs):
        st = replace(self.states[0], positions=metadata.positions)
        a = st.positions.to(torch.int64)  # negative: per-request positions
        b = st.block_ids.to(torch.int64)  # negative: block ids kept from the state
        self.history.update({"q": q})
        c = self.history["q"].float()  # negative: a batch tensor stored by update
        buf = self.manager.get_buffers(metadata.layer_idx)
        d = replace(st, block_ids=buf).block_ids.to(q.dtype)  # positive: a whole buffer replaced in
        return a, b, c, d
""",
    "pairs_loops_lmdeploy": """
import torch


class PairPool:
    def __init__(self, num_blocks, block_size, heads, dim, num_layers, dtype):
        self.pairs = []
        self.offsets = []
        for _ in range(num_layers):
            k = torch.empty((num_blocks, block_size, heads, dim), dtype=dtype)
            v = torch.empty((num_blocks, block_size, heads, dim), dtype=dtype)
            self.pairs.append((k, v))
            self.offsets.append((torch.zeros(8, dtype=torch.int32), torch.zeros(8, dtype=torch.int32)))
        self.values = [p[1] for p in self.pairs]
        self.starts = [o[0] for o in self.offsets]
        self.groups = [[k, v] for k, v in self.pairs]


class PairDecode:
    def __init__(self, pool: PairPool):
        self.pool = pool

    def forward(self, query, key, value, attn_metadata, layer_idx):
        a = self.pool.values[layer_idx].half()  # positive: the second of each appended pair
        b = self.pool.starts[layer_idx].long()  # negative: per-request offsets
        for i, pair in enumerate(self.pool.pairs):
            if i == layer_idx:
                c = pair[0].to(query.dtype)  # positive: enumerate over the pairs, the key cache
        head, *rest = self.pool.groups[layer_idx]
        d = rest[0].float()  # positive: a starred target keeps the value cache
        e = head[attn_metadata.block_offsets].float()  # negative: blocks gathered first
        first, *others = self.pool.offsets[layer_idx]
        g = others[0].long()  # negative: a starred target of offsets
        return a, b, c, d, e, g
""",
    "double_star_records_vllm": """
import operator
from dataclasses import asdict, dataclass

import torch


@dataclass
class Planes:
    key_cache: torch.Tensor
    value_cache: torch.Tensor
    slot_mapping: torch.Tensor


class StarImpl:
    def forward(self, layer, query, key, value, kv_cache, attn_metadata, output=None):
        planes = Planes(**{"key_cache": kv_cache[0], "value_cache": kv_cache[1], "slot_mapping": attn_metadata.slots})
        a = planes.value_cache.to(query.dtype)  # positive: a field given by a ** dict display
        b = planes.slot_mapping.long()  # negative: the slot mapping
        again = Planes(**asdict(planes))
        c = again.key_cache.half()  # positive: a record rebuilt from another's asdict
        d = again.slot_mapping.to(torch.int64)  # negative: the slot mapping, rebuilt
        both = operator.itemgetter(0, 1)
        kc, vc = both(kv_cache)
        e = vc.float()  # positive: a two-key itemgetter of the layer's cache
        sc, bt = both([attn_metadata.scales, attn_metadata.block_table])
        g = bt.long()  # negative: a two-key itemgetter of metadata
        return a, b, c, d, e, g
""",
    "spreads_sglang": """
import torch


class SpreadBackend:
    def __init__(self, model_runner):
        pool = model_runner.token_to_kv_pool
        self.planes = [*pool.k_buffer, *pool.v_buffer]
        self.counts = [*[torch.zeros(4, dtype=torch.int32) for _ in range(3)]]
        base = {"k0": pool.k_buffer[0]}
        self.table = {**base, "v0": pool.v_buffer[0]}
        self.meta = {**{"lens": torch.zeros(8, dtype=torch.int32)}}
        self.kw = dict(k=pool.k_buffer[0], lens=torch.zeros(8, dtype=torch.int32))

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        a = self.planes[layer.layer_id].to(q.dtype)  # positive: a list spread from the key and value pools
        b = self.counts[0].long()  # negative: spread of per-request counters
        c = self.table[forward_batch.key_name].half()  # positive: a dict merged with ** holds whole pools
        d = self.meta["lens"].to(torch.int64)  # negative: merged per-request lengths
        e = (*self.planes, q)[0].float()  # positive: a tuple display spread from the pools
        g = self.kw[forward_batch.key_name].half()  # positive: a dict of keywords holds a whole pool
        h = self.kw["lens"].long()  # negative: its per-request entry
        i = {**self.kw}["k"].float()  # positive: merged, the key pool entry
        return a, b, c, d, e, g, h, i
""",
    "records_in_dicts_trtllm": """
from dataclasses import dataclass

import torch


@dataclass
class LayerSlot:
    pool: torch.Tensor
    index: torch.Tensor


class SlotTableAttention:
    def __init__(self, kv_cache_manager, layer_names):
        self.slots = {
            name: LayerSlot(kv_cache_manager.get_buffers(i), torch.zeros(4, dtype=torch.int32))
            for i, name in enumerate(layer_names)
        }
        self.order = list(self.slots.values())

    def forward(self, q, k, v, metadata, **kwargs):
        for name, slot in self.slots.items():
            if name == metadata.layer_name:
                a = slot.pool.to(q.dtype)  # positive: a record from the dict's items
                b = slot.index.long()  # negative: the index field
        for i, slot in enumerate(self.order):
            if i == metadata.layer_idx:
                c = slot.pool.bfloat16()  # positive: enumerate over the records
        d = {n: s.pool for n, s in self.slots.items()}[metadata.layer_name].half()  # positive: a dict of fields
        e = {n: s.index for n, s in self.slots.items()}[metadata.layer_name].long()  # negative: of index fields
        return a, b, c, d, e
""",
    "object_built_with_pool_holds_a_dict_sglang": """
import torch


class PlaneIndex:
    # a helper object built with the pool: its dict holds each layer's planes
    def __init__(self, pool, first, last):
        self.planes = {i: (pool.get_key_buffer(i), pool.get_value_buffer(i)) for i in range(first, last)}
        self.counts = {i: torch.zeros(2, dtype=torch.int64) for i in range(first, last)}


class PlaneBackend:
    def __init__(self, model_runner):
        pool = model_runner.token_to_kv_pool
        self.index = PlaneIndex(pool, pool.start_layer, pool.end_layer)
        self.dtype = model_runner.dtype

    def forward_extend(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        kp, vp = self.index.planes[layer.layer_id]
        wide = kp.to(self.dtype)  # positive: the layer's keys through the helper object's dict
        vw = vp.float()  # positive: the values
        cnt = self.index.counts[layer.layer_id].to(torch.int32)  # negative: a per-layer count
        rows = kp[forward_batch.out_cache_loc].to(self.dtype)  # negative: gather-then-cast
        return wide, vw, cnt, rows
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
