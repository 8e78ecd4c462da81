"""Issue 19, round 8, call indirection (f4), in sglang, vLLM, lmdeploy and TRT-LLM styles, in shapes other
than family_recall_6's: function values as data (a hook list filled in __init__ and called per step, a
module-level visitor function handed to a pool method that calls it with a whole layer or with gathered
blocks, `map(lambda c: c[1]...)` over a connector's registered caches), a decorator whose wrapper calls the
decorated method with the pool's planes by position, `functools.singledispatch` with `register(T)`
overloads, Enum members naming an accessor and a dtype or device (`.value`), and CL002 plans given a
NamedTuple splat, a dict grown with `update` / `d[k] = v` / `|=`, and a repeated list. Each positive has
look-alikes beside it (gathers, windows, lengths, device moves, reinterprets, the cache dtype); the pruned
analysis gives the whole file's findings."""

from __future__ import annotations

import pytest

from castlint.tables import load_tables
from marked_cases import FILLER
from marked_cases import check as _check

TABLES = load_tables()

CASES = {
    "hook_list_in_init_sglang": """\
import torch


class HookedBackend:
    def __init__(self, model_runner):
        self.compute_dtype = model_runner.dtype
        self.on_kv = []
        self.on_rows = []
        self.on_kv.append(self._widen)
        self.on_kv.append(lambda buf: buf.half())  # positive: CL001
        self.on_rows.append(self._rows_up)

    def _widen(self, buf):
        return buf.to(self.compute_dtype)  # positive: CL001

    def _rows_up(self, rows):
        return rows.to(self.compute_dtype)  # negative: gathered rows

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        pool = forward_batch.token_to_kv_pool
        kb = pool.get_key_buffer(layer.layer_id)
        for fn in self.on_kv:
            kb = fn(kb)
        rows = pool.get_value_buffer(layer.layer_id)[forward_batch.out_cache_loc]
        for fn in self.on_rows:
            rows = fn(rows)
        lens = forward_batch.seq_lens.to(torch.int32)  # negative: lengths
        return kb, rows, lens
""",
    "visitor_module_function_lmdeploy": """\
import torch


class CacheEngine:
    def __init__(self, num_layers, num_blocks, block_size, heads, dim):
        self.gpu_cache = [
            (torch.empty((num_blocks, block_size, heads, dim), dtype=torch.int8),
             torch.empty((num_blocks, block_size, heads, dim), dtype=torch.int8))
            for _ in range(num_layers)
        ]

    def each_key(self, layer_idx, visit):
        return visit(self.gpu_cache[layer_idx][0])

    def each_block(self, layer_idx, offsets, visit):
        return visit(self.gpu_cache[layer_idx][0][offsets])


def _half(t):
    return t.half()  # positive: CL001


def _blocks_up(t):
    return t.float()  # negative: the visited blocks are gathered


class VisitAttention(torch.nn.Module):
    def __init__(self, engine, layer_idx):
        super().__init__()
        self.engine = engine
        self.layer_idx = layer_idx

    def forward(self, query, attn_metadata):
        k = self.engine.each_key(self.layer_idx, _half)
        b = self.engine.each_block(self.layer_idx, attn_metadata.block_offsets, _blocks_up)
        q = query.to(torch.float16)  # negative: the batch query
        return k, b, q
""",
    "map_lambda_plane_vllm": """\
import torch


class MirrorConnector:
    def __init__(self, dtype=torch.bfloat16):
        self.dtype = dtype
        self.kv_caches = {}

    def register_kv_caches(self, kv_caches):
        self.kv_caches = kv_caches

    def start_load_kv(self, forward_context, **kwargs):
        vals = list(map(lambda c: c[1].to(self.dtype), self.kv_caches.values()))  # positive: CL001
        moved = list(map(lambda c: c.to("cpu"), self.kv_caches.values()))  # negative: a device move
        return vals, moved

    def save_kv_layer(self, layer_name, kv_layer, attn_metadata, **kwargs):
        slots = attn_metadata.slot_mapping
        rows = list(map(lambda c: c[:, slots].to(self.dtype), [kv_layer]))  # negative: gathered at the slots
        return rows
""",
    "decorator_injects_positional_sglang": """\
import torch


def with_planes(fn):
    def inner(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        k_all, v_all = forward_batch.token_to_kv_pool.get_kv_buffer(layer.layer_id)
        return fn(self, q, layer, k_all, v_all)

    return inner


def with_rows(fn):
    def inner(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        loc = forward_batch.out_cache_loc
        k_all = forward_batch.token_to_kv_pool.get_key_buffer(layer.layer_id)
        return fn(self, q, layer, k_all[loc], None)

    return inner


class PlaneBackend:
    @with_planes
    def forward_decode(self, q, layer, keys, values):
        kc = keys.to(q.dtype)  # positive: CL001
        vb = values.view(torch.uint8)  # negative: a reinterpret
        return kc, vb


class RowBackend:
    @with_rows
    def forward_extend(self, q, layer, keys, values):
        r = keys.to(q.dtype)  # negative: gathered rows
        return r
""",
    "singledispatch_register_type_sglang": """\
from functools import singledispatch

import torch


@singledispatch
def widen(x, dtype):
    raise NotImplementedError


@widen.register(torch.Tensor)
def _widen_tensor(x, dtype):
    return x.to(dtype)


@widen.register(tuple)
def _widen_pair(x, dtype):
    return tuple(widen(t, dtype) for t in x)


class DispatchBackend:
    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        pool = forward_batch.token_to_kv_pool
        kv = widen(pool.get_key_buffer(layer.layer_id), q.dtype)  # positive: CL001
        pair = widen(pool.get_kv_buffer(layer.layer_id), q.dtype)  # positive: CL001
        win = widen(pool.get_key_buffer(layer.layer_id)[: forward_batch.seq_lens_sum], q.dtype)  # negative: a window
        qq = widen(q, torch.float32)  # negative: the batch query
        return kv, pair, win, qq
""",
    "enum_value_name_and_dtype_trtllm": """\
import enum

import torch


class Plane(enum.Enum):
    KEYS = "key_cache"
    VALUES = "value_cache"


class Target(enum.Enum):
    COMPUTE = torch.bfloat16
    HOST = "cpu"


class Manager:
    def __init__(self, n, blocks, size, heads, dim):
        self._k = [torch.empty(blocks, size, heads, dim, dtype=torch.float8_e4m3fn) for _ in range(n)]
        self._v = [torch.empty(blocks, size, heads, dim, dtype=torch.float8_e4m3fn) for _ in range(n)]

    def key_cache(self, i):
        return self._k[i]

    def value_cache(self, i):
        return self._v[i]


class EnumAttention:
    def __init__(self, manager, layer_idx, plane=Plane.KEYS):
        self.manager = manager
        self.layer_idx = layer_idx
        self.plane = plane

    def forward(self, q, metadata):
        kc = getattr(self.manager, Plane.VALUES.value)(self.layer_idx).to(Target.COMPUTE.value)  # positive: CL001
        mv = getattr(self.manager, self.plane.value)(self.layer_idx).to(Target.HOST.value)  # negative: a device move
        lens = metadata.seq_lens.to(Target.COMPUTE.value)  # negative: lengths
        return kc, mv, lens
""",
    "plan_record_splat_and_merged_kwargs_sglang": """\
import dataclasses
from typing import NamedTuple

import torch


class Pair(NamedTuple):
    q: torch.dtype
    kv: torch.dtype


@dataclasses.dataclass(frozen=True)
class Dtypes:
    q_data_type: torch.dtype
    kv_data_type: torch.dtype


class FormsPlanner:
    def __init__(self, model_runner, wrapper):
        self.wrapper = wrapper
        self.data_type = model_runner.dtype
        self.kv_cache_dtype = model_runner.kv_cache_dtype
        self.same = Pair(model_runner.dtype, model_runner.dtype)
        self.mixed = Pair(model_runner.dtype, model_runner.kv_cache_dtype)
        self.same_rec = Dtypes(q_data_type=model_runner.dtype, kv_data_type=model_runner.dtype)

    def init_forward_metadata(self, fb):
        geo = [fb.qo_indptr, fb.kv_indptr, fb.kv_indices, fb.kv_lens, 16, 512, 64, 1, False, 0.1]
        self.wrapper.plan(*geo, *self.same)  # positive: CL002
        self.wrapper.plan(*geo, *self.mixed)  # negative: kv dtype is the cache dtype
        opts = {}
        opts.update(q_data_type=self.data_type)
        opts["kv_data_type"] = self.data_type
        self.wrapper.plan(*geo, **opts)  # positive: CL002
        good = dict(q_data_type=self.data_type)
        good |= {"kv_data_type": self.kv_cache_dtype}
        self.wrapper.plan(*geo, **good)  # negative: kv dtype is the cache dtype
        self.wrapper.plan(*geo, *[self.data_type] * 2)  # positive: CL002
        self.wrapper.plan(*geo, *(self.data_type, self.kv_cache_dtype))  # negative: the cache dtype
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
