"""Containers and records on unseen shapes (family_recall_9 round, f3): each look-alike beside the
positives that must stay found, in sglang, vLLM, lmdeploy and TensorRT-LLM styles. None of these is a
file of the corpus.

- *iteration shapes* (rules/accessors.toml [iteration] numbered, pairs, repeats, counters): what
  iterating `enumerate(xs, start=s)`, `zip(a, b)`, `itertools.product(a, b)`, `itertools.repeat(x, n)`
  and `range(n)` yields, at any unpacking position (`for _, (k, v) in enumerate(gpu_cache)`), as a
  value (`indexed = enumerate(...)`; `list(takewhile(p, indexed))[0]`), in a dict built from pairs
  (`dict(enumerate(pool.k_buffer))`, `OrderedDict((n, t) for ...)`) and as an index's kind (`half` of
  `product(ids, (0, 1))` is a constant; a counter is a scalar);
- *folds* ([callables] fold_functions, add_functions, or_functions, sum_functions):
  `functools.reduce(step, xs, init)` over a sequence the file does not show: the accumulator a dict or
  list grown by a lambda, a def or an operator function (`{**acc, i: ...}`, `acc + [...]`, `acc | {...}`,
  `operator.add`, `operator.or_`), its step's parameters bound; `sum(lists, [])` concatenates;
- *pytrees* ([iteration] tree_apply, tree_apply_typed, tree_leaves, tree_flatten): `tree_map(f, tree)` and
  `tree_map_only(T, f, tree)` run f on each leaf, `tree_leaves(tree)` and `tree_flatten(tree)[0]` list them;
- *stores into elements of containers*: `d.setdefault(g, {})[k] = v`, `d[g][k] = v`,
  `d.setdefault(g, []).append(v)` (of self.d and of a local d); what is stored under a constant key
  is read back under that key only (`self.caches["lens"]` beside `self.caches["k"]`);
- *record field names by position*: `getattr(rec, Rec._fields[0])`, `dataclasses.fields(rec)[1].name`,
  `Rec.__slots__[0]`; `vars(rec)` / `rec.__dict__` as containers of rec's fields;
- *walrus targets leaked from comprehensions* (PEP 572): `[(last := f(i)) for i in ids]; last`.

A marker `# positive CLxxx` names the code expected on that line. The pruned analysis gives the whole
file's findings, with and without unrelated filler."""

from __future__ import annotations

import re

import pytest

from castlint.tables import load_tables
from marked_cases import FILLER
from marked_cases import check as _check

TABLES = load_tables()
_MARK = re.compile(r"# positive (CL\d{3})")

CASES = {
    # -- iteration shapes ------------------------------------------------------------------------
    "enumerate_dict_sglang": """
import collections

import torch


class NumberedBackend:
    def __init__(self, model_runner):
        self.pool = model_runner.token_to_kv_pool
        self.dtype = model_runner.dtype

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        by_layer = collections.OrderedDict(enumerate(self.pool.v_buffer, self.pool.start_layer))
        a = by_layer[layer.layer_id].to(self.dtype)  # positive CL001
        pairs = dict((i, buf) for i, buf in enumerate(self.pool.k_buffer))
        b = pairs.get(layer.layer_id).float()  # positive CL001
        counts = dict(enumerate(forward_batch.seq_lens.tolist()))
        c = torch.tensor(counts[0]).to(torch.int64)  # negative: a length
        rows = dict(enumerate(self.pool.k_buffer))[layer.layer_id][forward_batch.out_cache_loc]
        rows = rows.float()  # negative: gathered rows
        return a, b, c, rows
""",
    "enumerate_unpack_lmdeploy": """
import itertools

import torch


class NumberedCacheAttention:
    def __init__(self, cache_engine, first_layer):
        self.cache_engine = cache_engine
        self.first_layer = first_layer

    def forward(self, query, key, value, attn_metadata, k_scales_zeros=None, v_scales_zeros=None):
        numbered = enumerate(self.cache_engine.gpu_cache, start=self.first_layer)
        kept = [entry for entry in numbered if entry[0] >= self.first_layer]
        _, (kc, vc) = kept[-1]
        a = vc.half()  # positive CL001
        for idx, (kk, _) in itertools.islice(enumerate(self.cache_engine.gpu_cache), 2):
            b = kk.to(query.dtype)  # positive CL001
        for idx, off in enumerate(attn_metadata.block_offsets):
            c = off.to(torch.int32)  # negative: one sequence's block offsets
        d = k_scales_zeros.float()  # negative: scales/zeros
        return a, b, c, d
""",
    "product_planes_vllm": """
import itertools

import torch


class ProductPlanesImpl:
    def __init__(self, num_layers):
        self.num_layers = num_layers

    def forward(self, layer, query, key, value, kv_cache, attn_metadata, output=None):
        out = {}
        for name, plane in itertools.product(("k", "v"), kv_cache.unbind(0)):
            out[name] = plane.to(query.dtype)  # positive CL001
        combos = list(itertools.product(("k",), [kv_cache]))
        _, cache = combos[0]
        whole = cache.float()  # positive CL001
        for plane, row in itertools.product(range(2), attn_metadata.slot_mapping):
            picked = kv_cache[plane, row].float()  # negative: one slot of the plane
        for blk, seq in itertools.product(attn_metadata.block_tables, attn_metadata.seq_lens):
            lens = seq.to(torch.int64)  # negative: a length
        return out, whole, picked, lens
""",
    "product_halves_trtllm": """
import itertools

import torch


class HalfProductAttention:
    def __init__(self, layer_idx):
        self.layer_idx = layer_idx

    def forward(self, q, k, v, metadata):
        mgr = metadata.kv_cache_manager
        grid = [(0, "k"), (1, "v")]
        for (half, tag), extra in itertools.product(grid, [None]):
            a = mgr.get_buffers(self.layer_idx)[:, half].to(q.dtype)  # positive CL001
        for (half, tag), rows in zip(grid, metadata.block_rows):
            b = mgr.get_buffers(self.layer_idx)[rows, half].float()  # negative: the step's blocks
        return a, b
""",
    "repeat_sglang": """
import itertools

import torch


class RepeatBackend:
    def __init__(self, model_runner):
        self.pool = model_runner.token_to_kv_pool
        self.dtype = model_runner.dtype

    def forward_extend(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        kb = self.pool.get_key_buffer(layer.layer_id)
        twice = list(itertools.repeat(kb, 2))
        a = twice[1].to(self.dtype)  # positive CL001
        for vb in itertools.repeat(self.pool.get_value_buffer(layer.layer_id), 1):
            b = vb.bfloat16()  # positive CL001
        for part in itertools.repeat(kb[forward_batch.out_cache_loc]):
            c = part.float()  # negative: gathered rows
            break
        for n in itertools.repeat(forward_batch.seq_lens, 1):
            d = n.to(torch.int32)  # negative: lengths
        return a, b, c, d
""",
    "copies_vllm": """
import copy

import torch


class CopyConnector:
    def register_kv_caches(self, kv_caches):
        self.kv_caches = kv_caches

    def wait_for_save(self):
        snapshot = copy.deepcopy(self.kv_caches)
        for name in snapshot:
            a = snapshot[name].half()  # positive CL001
        return a

    def save_kv_layer(self, layer_name, kv_layer, attn_metadata, **kwargs):
        b = copy.copy(kv_layer).to(torch.float16)  # positive CL001
        c = copy.deepcopy(attn_metadata.slot_mapping).to(torch.int64)  # negative: the step's slots
        d = copy.copy(kv_layer[:, attn_metadata.slot_mapping]).float()  # negative: gathered rows
        return b, c, d
""",
    # -- folds -----------------------------------------------------------------------------------
    "fold_dict_sglang": """
import functools
from functools import reduce

import torch


class FoldBackend:
    def __init__(self, model_runner):
        self.pool = model_runner.token_to_kv_pool
        self.layer_ids = list(range(model_runner.model_config.num_hidden_layers))
        self.dtype = model_runner.dtype

    def init_forward_metadata(self, forward_batch):
        pool = forward_batch.token_to_kv_pool
        keys = reduce(lambda acc, i: acc | {i: pool.get_key_buffer(i)}, self.layer_ids, {})
        self.k0 = keys[self.layer_ids[0]].to(self.dtype)  # positive CL001
        vals = functools.reduce(lambda acc, i: (*acc, pool.get_value_buffer(i)), self.layer_ids, ())
        self.v_last = vals[-1].half()  # positive CL001
        lens = functools.reduce(lambda acc, r: acc + [r], forward_batch.seq_lens.tolist(), [])
        self.lens = torch.tensor(lens).to(torch.int64)  # negative: lengths
        loc = forward_batch.out_cache_loc
        rows = reduce(lambda acc, i: {**acc, i: pool.get_key_buffer(i)[loc]}, self.layer_ids, {})
        self.rows0 = rows[self.layer_ids[0]].float()  # negative: gathered rows
""",
    "operator_folds_trtllm": """
import functools
import itertools
import operator

import torch


class OperatorFoldAttention:
    def __init__(self, layer_ids):
        self.layer_ids = layer_ids

    def forward(self, q, k, v, metadata):
        mgr = metadata.kv_cache_manager
        joined = functools.reduce(operator.add, ([mgr.get_buffers(i)] for i in self.layer_ids), [])
        a = joined[0].to(q.dtype)  # positive CL001
        merged = functools.reduce(operator.or_, ({i: mgr.get_buffers(i)} for i in self.layer_ids), {})
        b = merged[self.layer_ids[-1]].half()  # positive CL001
        every = sum(([mgr.get_buffers(i)] for i in self.layer_ids), [])
        c = every[-1].float()  # positive CL001
        for idx, buf in zip(itertools.count(), joined):
            d = mgr.get_buffers(idx)[:, 0].float()  # positive CL001
        total = sum(len(mgr.get_block_ids_per_seq(s)) for s in metadata.request_ids)
        e = torch.tensor(total).to(torch.int64)  # negative: a count
        ids = functools.reduce(operator.add, (mgr.get_block_ids_per_seq(s) for s in metadata.request_ids), [])
        f = torch.tensor(ids).to(torch.int32)  # negative: block ids
        rows = sum(([mgr.get_buffers(i)[metadata.block_rows]] for i in self.layer_ids), [])
        g = rows[0].float()  # negative: gathered rows
        return a, b, c, d, e, f, g
""",
    "fold_pairs_sglang": """
import functools
import operator

import torch


class FoldPairsBackend:
    def __init__(self, model_runner):
        self.dtype = model_runner.dtype

    def forward_extend(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        pool = forward_batch.token_to_kv_pool
        flat = functools.reduce(lambda acc, kv: acc + list(kv), zip(pool.k_buffer, pool.v_buffer), [])
        a = flat[1].to(self.dtype)  # positive CL001
        widest = functools.reduce(lambda x, y: x if x.shape[-1] >= y.shape[-1] else y, pool.v_buffer)
        b = widest.half()  # positive CL001
        seconds = list(map(operator.itemgetter(1), enumerate(pool.k_buffer)))
        c = seconds[layer.layer_id].float()  # positive CL001
        lens = functools.reduce(lambda acc, n: acc + list((n,)), forward_batch.seq_lens.tolist(), [])
        d = torch.tensor(lens).to(torch.int64)  # negative: lengths
        firsts = list(map(operator.itemgetter(0), enumerate(pool.k_buffer)))
        e = torch.tensor(firsts).to(torch.int64)  # negative: the positions
        return a, b, c, d, e
""",
    "fold_def_step_trtllm": """
import functools

import torch


def _add(acc, item):
    return acc + [item]


class FoldStepAttention:
    def __init__(self, kv_cache_manager, layer_ids, compute_dtype=torch.bfloat16):
        self.kv_cache_manager = kv_cache_manager
        self.layer_ids = layer_ids
        self.compute_dtype = compute_dtype

    def _collect(self, acc, idx):
        return {**acc, idx: self.kv_cache_manager.get_buffers(idx)}

    def forward(self, q, k, v, metadata):
        mgr = metadata.kv_cache_manager
        bufs = functools.reduce(_add, (mgr.get_buffers(i) for i in self.layer_ids), [])
        first = bufs[0].to(self.compute_dtype)  # positive CL001
        held = functools.reduce(self._collect, self.layer_ids, {})
        second = held[self.layer_ids[-1]].half()  # positive CL001
        ids = functools.reduce(_add, metadata.request_ids, [])
        blk = torch.tensor(ids, dtype=torch.int32)  # negative: request ids
        return first, second, blk
""",
    "fold_upcast_step_vllm": """
import functools

import torch


class FoldUpcastConnector:
    def register_kv_caches(self, kv_caches):
        self.kv_caches = kv_caches
        self.slot_counts = {name: torch.zeros(8, dtype=torch.int32) for name in kv_caches}

    def wait_for_save(self):
        staged = functools.reduce(
            lambda acc, name: {**acc, name: self.kv_caches[name].to(torch.float16)},  # positive CL001
            self.kv_caches,
            {},
        )
        counts = functools.reduce(
            lambda acc, name: {**acc, name: self.slot_counts[name].to(torch.int64)},  # negative: small counters
            self.slot_counts,
            {},
        )
        return staged, counts
""",
    # -- pytrees ---------------------------------------------------------------------------------
    "pytree_map_vllm": """
import torch
import torch.utils._pytree as pytree


def _widen(t):
    return t.to(torch.float32)  # positive CL001


class TreeConnector:
    def register_kv_caches(self, kv_caches):
        self.kv_caches = kv_caches
        self.counts = {n: torch.zeros(4, dtype=torch.int32) for n in kv_caches}
        self.host = pytree.tree_map(lambda t: t.to("cpu"), kv_caches)  # negative: a move at registration

    def wait_for_layer_load(self, layer_name):
        wide = pytree.tree_map(_widen, self.kv_caches)
        small = pytree.tree_map(lambda c: c.to(torch.int64), self.counts)  # negative: counters
        return wide, small

    def start_load_kv(self, forward_context, **kwargs):
        leaves, spec = pytree.tree_flatten(self.kv_caches)
        head = leaves[0].half()  # positive CL001
        flat, _ = pytree.tree_flatten(self.counts)
        n = flat[0].to(torch.int64)  # negative: counters
        return head, n
""",
    "pytree_leaves_lmdeploy": """
import torch
from torch.utils._pytree import tree_leaves, tree_map


class TreeLeavesAttention:
    def __init__(self, cache_engine):
        self.cache_engine = cache_engine

    def forward(self, query, key, value, attn_metadata, k_scales_zeros=None, v_scales_zeros=None):
        every = tree_leaves(self.cache_engine.gpu_cache)
        a = every[-1].to(query.dtype)  # positive CL001
        up = tree_map(lambda t: t.half(), self.cache_engine.gpu_cache)  # positive CL001
        offs = tree_leaves([attn_metadata.block_offsets, attn_metadata.q_seqlens])
        b = offs[0].to(torch.int32)  # negative: block offsets
        sz = tree_map(lambda s: s.float(), [k_scales_zeros, v_scales_zeros])  # negative: scales/zeros
        return a, up, b, sz
""",
    "pytree_typed_sglang": """
import torch
from torch.utils import _pytree


def _densify(t):
    return t.bfloat16()  # positive CL001


class TypedTreeBackend:
    def __init__(self, model_runner):
        self.dtype = model_runner.dtype

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        pool = forward_batch.token_to_kv_pool
        tree = {"k": pool.get_key_buffer(layer.layer_id), "v": [pool.get_value_buffer(layer.layer_id)]}
        up = _pytree.tree_map_only(torch.Tensor, lambda t: t.to(self.dtype), tree)  # positive CL001
        dense = _pytree.tree_map_only(torch.Tensor, _densify, tree)
        meta = {"loc": forward_batch.out_cache_loc, "lens": forward_batch.seq_lens}
        ints = _pytree.tree_map_only(torch.Tensor, lambda t: t.to(torch.int64), meta)  # negative: the step's slots
        return up, dense, ints
""",
    # -- stores into elements of containers ------------------------------------------------------
    "nested_setdefault_sglang": """
import torch


class NestedStoreBackend:
    def __init__(self, model_runner):
        pool = model_runner.token_to_kv_pool
        self.by_kind = {}
        self.groups = {}
        for lid in range(pool.start_layer, pool.end_layer):
            kind = "swa" if lid % 2 else "full"
            self.by_kind.setdefault(kind, {})[lid] = pool.get_value_buffer(lid)
            self.groups.setdefault(kind, []).append(pool.get_key_buffer(lid))
        self.lens = {"swa": {}, "full": {}}
        self.dtype = model_runner.dtype

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        kind = "swa" if layer.layer_id % 2 else "full"
        a = self.by_kind.get(kind, {})[layer.layer_id].to(self.dtype)  # positive CL001
        b = self.groups[kind][0].half()  # positive CL001
        c = self.lens[kind].get(layer.layer_id, forward_batch.seq_lens).to(torch.int32)  # negative: lengths
        d = self.groups[kind][0][forward_batch.out_cache_loc].float()  # negative: gathered rows
        return a, b, c, d
""",
    "nested_local_trtllm": """
import torch


class NestedLocalAttention:
    def __init__(self, layer_ids):
        self.layer_ids = layer_ids

    def forward(self, q, k, v, metadata):
        mgr = metadata.kv_cache_manager
        table = {"main": {}}
        for idx in self.layer_ids:
            table["main"][idx] = mgr.get_buffers(idx)
        blocks = {}
        for idx in self.layer_ids:
            blocks.setdefault("main", {})[idx] = mgr.get_block_ids_per_seq(idx)
        a = table["main"][self.layer_ids[0]].to(q.dtype)  # positive CL001
        b = torch.as_tensor(blocks["main"][self.layer_ids[0]], dtype=torch.int32)  # negative: block ids
        return a, b
""",
    "nested_append_vllm": """
import collections

import torch


class NestedAppendConnector:
    def register_kv_caches(self, kv_caches):
        self.by_group = collections.defaultdict(dict)
        self.slots = collections.defaultdict(list)
        for name, cache in kv_caches.items():
            self.by_group[name.split(".")[0]][name] = cache
            self.slots.setdefault(name, []).append(torch.zeros(16, dtype=torch.int32))

    def save_kv_layer(self, layer_name, kv_layer, attn_metadata, **kwargs):
        group = layer_name.split(".")[0]
        a = self.by_group[group][layer_name].to(torch.float16)  # positive CL001
        b = self.slots[layer_name][0].to(torch.int64)  # negative: slot counters
        return a, b
""",
    "keyed_stores_sglang": """
import torch


class KeyedStoreBackend:
    def __init__(self, model_runner):
        pool = model_runner.token_to_kv_pool
        self.caches = {"k": [], "v": [], "lens": []}
        for i in range(pool.start_layer, pool.end_layer):
            self.caches["k"].append(pool.get_key_buffer(i))
            self.caches["v"].append(pool.get_value_buffer(i))
            self.caches["lens"].append(torch.zeros(4, dtype=torch.int32))
        self.dtype = model_runner.dtype

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        a = self.caches["k"][layer.layer_id].to(self.dtype)  # positive CL001
        b = self.caches["v"][-1].half()  # positive CL001
        c = self.caches["lens"][0].to(torch.int64)  # negative: small per-layer counters under another key
        return a, b, c
""",
    "keyed_stores_lmdeploy": """
import torch


class KeyedCacheAttention:
    def __init__(self, cache_engine):
        self.by_role = {"key": {}, "offsets": {}}
        for i, (kc, vc) in enumerate(cache_engine.gpu_cache):
            self.by_role["key"][i] = kc
            self.by_role["offsets"][i] = torch.arange(16, dtype=torch.int32)

    def forward(self, query, key, value, attn_metadata, k_scales_zeros=None, v_scales_zeros=None):
        a = self.by_role["key"][0].to(query.dtype)  # positive CL001
        b = self.by_role["offsets"][0].to(torch.int64)  # negative: offsets under another key
        return a, b
""",
    "nested_weights_offload_sglang": """
import torch


class LayerOffloader:
    def __init__(self, model_runner, layer_groups):
        self.pool = model_runner.token_to_kv_pool
        self.host = {}
        self.meta = {}
        self.keys = {}
        for layer_idx, weights in layer_groups.items():
            self.host[layer_idx] = {}
            for name, weight in weights:
                local = weight.detach()
                staged = torch.empty_strided(size=local.shape, stride=local.stride(), dtype=local.dtype)
                staged.copy_(local)
                self.host[layer_idx][name] = staged
                self.meta[name] = local.dtype
            self.keys.setdefault("k", {})[layer_idx] = self.pool.get_key_buffer(layer_idx)
        self.dtype = model_runner.dtype

    def forward(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        for name, staged in self.host[layer.layer_id].items():
            dev = torch.empty(staged.shape, dtype=self.meta[name])
            dev.copy_(self.host[layer.layer_id][name])  # negative: a weight staged per layer, not a cache
            w = self.host[layer.layer_id][name].to(self.dtype)  # negative: a weight
        kd = self.keys["k"][layer.layer_id].to(self.dtype)  # positive CL001
        return dev, w, kd
""",
    "nested_keys_vllm": """
import collections

import torch


class NestedKeysConnector:
    def __init__(self):
        self.per_layer = collections.defaultdict(dict)
        self.groups = {}

    def register_kv_caches(self, kv_caches):
        for name, cache in kv_caches.items():
            idx = int(name.rsplit(".", 2)[1])
            self.per_layer[idx]["cache"] = cache
            self.per_layer[idx]["slots"] = torch.zeros(64, dtype=torch.int32)
            self.groups.setdefault("every", {})[name] = cache
            self.groups.setdefault("counts", {})[name] = torch.zeros(1, dtype=torch.int32)

    def start_load_kv(self, forward_context, **kwargs):
        a = self.per_layer[0]["cache"].to(torch.float16)  # positive CL001
        b = self.per_layer[0]["slots"].to(torch.int64)  # negative: slot counters under another inner key
        for name, t in self.groups["every"].items():
            c = t.half()  # positive CL001
        for name, n in self.groups["counts"].items():
            d = n.to(torch.int64)  # negative: counts under another outer key
        return a, b, c, d
""",
    # -- record field names by position, vars() -----------------------------------------------
    "fields_by_position_vllm": """
import dataclasses
from typing import NamedTuple

import torch


class KV(NamedTuple):
    key: torch.Tensor
    value: torch.Tensor


@dataclasses.dataclass
class Meta:
    slots: torch.Tensor
    lens: torch.Tensor


class FieldPositionImpl:
    def forward(self, layer, query, key, value, kv_cache, attn_metadata, output=None):
        rec = KV(kv_cache[0], kv_cache[1])
        a = getattr(rec, KV._fields[-1]).to(query.dtype)  # positive CL001
        first = next(iter(rec._asdict().values())).half()  # positive CL001
        b = getattr(rec, rec._fields[0]).float()  # positive CL001
        meta = Meta(attn_metadata.slot_mapping, attn_metadata.seq_lens)
        c = getattr(meta, dataclasses.fields(meta)[1].name).to(torch.int64)  # negative: lengths
        d = getattr(meta, Meta._fields[0] if hasattr(Meta, "_fields") else "slots").to(torch.int64)  # negative: slots
        return a, first, b, c, d
""",
    "fields_dataclass_sglang": """
import dataclasses

import torch


@dataclasses.dataclass
class LayerPair:
    k_buf: torch.Tensor
    v_buf: torch.Tensor


class Slotted:
    __slots__ = ("lat", "rows")

    def __init__(self, lat, rows):
        self.lat = lat
        self.rows = rows


class FieldNameBackend:
    def __init__(self, model_runner):
        self.dtype = model_runner.dtype

    def forward_extend(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        pool = forward_batch.token_to_kv_pool
        pair = LayerPair(pool.get_key_buffer(layer.layer_id), pool.get_value_buffer(layer.layer_id))
        a = getattr(pair, dataclasses.fields(pair)[1].name).to(self.dtype)  # positive CL001
        s = Slotted(pool.get_key_buffer(layer.layer_id), forward_batch.out_cache_loc)
        b = getattr(s, Slotted.__slots__[0]).half()  # positive CL001
        c = getattr(s, Slotted.__slots__[1]).to(torch.int32)  # negative: the step's slots
        return a, b, c
""",
    "vars_record_trtllm": """
import torch


class Held:
    def __init__(self, buf, scale):
        self.buf = buf
        self.scale = scale


class StepRows:
    def __init__(self, metadata):
        self.block_ids = metadata.block_ids
        self.lens = metadata.seq_lens


class VarsAttention:
    def __init__(self, layer_idx):
        self.layer_idx = layer_idx

    def forward(self, q, k, v, metadata):
        held = Held(metadata.kv_cache_manager.get_buffers(self.layer_idx), None)
        up = [t.to(q.dtype) for t in held.__dict__.values() if t is not None]  # positive CL001
        first = [t for _, t in vars(held).items()][0]
        a = first.float()  # positive CL001
        b = list(vars(held).items())[0][1].half()  # positive CL001
        name = list(vars(held).items())[0][0]
        rows = {n: t.to(torch.int64) for n, t in vars(StepRows(metadata)).items()}  # negative: ids and lengths
        return up, a, b, name, rows
""",
    # -- walrus targets leaked from comprehensions -------------------------------------------------
    "walrus_leak_vllm": """
import torch


class WalrusImpl:
    def forward(self, layer, query, key, value, kv_cache, attn_metadata, output=None):
        sizes = [(plane := half).numel() for half in kv_cache.unbind(0)]
        a = plane.to(query.dtype)  # positive CL001
        any_big = any((cnt := n) > 8 for n in attn_metadata.seq_lens.tolist())
        b = torch.tensor(cnt).to(torch.int64)  # negative: a count
        picks = [(rows := kv_cache[0][s]) for s in attn_metadata.slot_mapping]
        c = rows.float()  # negative: one slot
        return sizes, a, any_big, b, picks, c
""",
    "walrus_leak_lmdeploy": """
import torch


class WalrusCacheAttention:
    def __init__(self, cache_engine):
        self.cache_engine = cache_engine

    def forward(self, query, key, value, attn_metadata, k_scales_zeros=None, v_scales_zeros=None):
        shapes = {i: (kc := pair[0]).shape for i, pair in enumerate(self.cache_engine.gpu_cache)}
        a = kc.half()  # positive CL001
        total = sum((q := int(n)) for n in attn_metadata.q_seqlens.tolist())
        b = torch.tensor(q).to(torch.int32)  # negative: a length
        return shapes, a, total, b
""",
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_marked_lines(tmp_path, name):
    path = tmp_path / f"{name}.py"
    path.write_text(CASES[name])
    lines = CASES[name].splitlines()
    found = {(code, line) for code, line, _ in _check(path, False)}
    positives = {(m.group(1), i) for i, text in enumerate(lines, 1) if (m := _MARK.search(text))}
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


def test_api_facts_are_data():
    """The iteration shapes, pytree functions and folds live in the tables, not in the analysis."""
    assert "enumerate" in TABLES.iter_numbered
    assert "itertools.product" in TABLES.iter_pairs
    assert "itertools.repeat" in TABLES.iter_repeats
    assert "range" in TABLES.counters
    assert "torch.utils._pytree.tree_map" in TABLES.tree_apply
    assert "torch.utils._pytree.tree_map_only" in TABLES.tree_apply_typed
    assert "torch.utils._pytree.tree_leaves" in TABLES.tree_leaves
    assert "torch.utils._pytree.tree_flatten" in TABLES.tree_flatten
    assert "functools.reduce" in TABLES.fold_functions
    assert "_fields" in TABLES.record_field_names_attributes
