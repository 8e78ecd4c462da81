"""Pools through other objects and class hierarchies, round 6 (families f1, f2): a wrapper's
dunder protocol reached through a construction stored on self, a bound method of another object
held in a table, an unannotated parameter's class told by its callers (constructions, cooperative
`super().__init__` of self's class), `super()` resolved in the MRO of self's class (mixin chains),
inherited dataclass fields, `types.SimpleNamespace` bundles, `weakref.proxy` / `weakref.ref`
stand-ins, and slice bounds that count what is live. Each shape has look-alikes beside it; the
pruned analysis gives the whole file's findings."""

from __future__ import annotations

import pytest

from castlint.tables import load_tables
from marked_cases import FILLER
from marked_cases import check as _check

TABLES = load_tables()

CASES = {
    # f1: __iter__ / __getitem__ of a wrapper stored on self (sglang style)
    "getitem_wrapper_sglang": """
import torch


class LayerView:
    def __init__(self, pool):
        self.pool = pool

    def __getitem__(self, layer_id):
        return self.pool.get_key_buffer(layer_id)


class RowView:
    def __init__(self, pool, loc):
        self.pool = pool
        self.loc = loc

    def __getitem__(self, layer_id):
        return self.pool.get_key_buffer(layer_id)[self.loc]


class WrapBackend:
    def __init__(self, model_runner):
        self.keys = LayerView(model_runner.token_to_kv_pool)
        self.rows = RowView(model_runner.token_to_kv_pool, model_runner.loc)

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        a = self.keys[layer.layer_id].to(q.dtype)  # positive
        b = self.rows[layer.layer_id].to(q.dtype)  # negative
        return a, b
""",
    # f1: a bound method of another object kept in a table (vLLM style)
    "bound_method_table_vllm": """
import torch


class CacheReader:
    def __init__(self, runner):
        self.runner = runner

    def layer(self, idx):
        return self.runner.kv_caches[idx]

    def positions(self, n):
        return torch.arange(n)


class TableImpl:
    def __init__(self, runner):
        reader = CacheReader(runner)
        self.table = {"kv": reader.layer, "pos": reader.positions}

    def execute_model(self, scheduler_output, idx):
        whole = self.table["kv"](idx).to(torch.bfloat16)  # positive
        pos = self.table["pos"](8).to(torch.int32)  # negative
        return whole, pos
""",
    # f2: cooperative **kwargs __init__ across bases (lmdeploy style)
    "cooperative_init_lmdeploy": """
import torch


class BindCaches:
    def __init__(self, engine=None, **kwargs):
        self.caches = engine.gpu_cache
        super().__init__(**kwargs)


class BindStaging:
    def __init__(self, rows=16, **kwargs):
        self.staging = torch.empty(rows, 128, dtype=torch.float16)
        super().__init__(**kwargs)


class CoopImpl(BindCaches, BindStaging):
    def __init__(self, engine, idx):
        super().__init__(engine=engine, rows=16)
        self.idx = idx

    def forward(self, query, key, value, attn_metadata):
        k_cache, v_cache = self.caches[self.idx]
        kf = k_cache.float()  # positive
        sf = self.staging.float()  # negative
        return kf, sf
""",
    # f2: inherited dataclass fields with __call__ in the subclass (TensorRT-LLM style)
    "dataclass_inherited_fields_trtllm": """
from dataclasses import dataclass

import torch


@dataclass
class BaseArgs:
    pool: torch.Tensor
    lens: torch.Tensor


@dataclass
class RunArgs(BaseArgs):
    heads: int = 8

    def __call__(self, q):
        a = self.pool.to(q.dtype)  # positive
        b = self.lens.to(torch.int64)  # negative
        return a, b


class Runner:
    def forward(self, q, k, v, metadata):
        mgr = metadata.kv_cache_manager
        return RunArgs(mgr.get_buffers(0), metadata.seq_lens)(q)
""",
    # f2: super() through mixins in the MRO of the instance's class (sglang style)
    "super_mixin_chain_sglang": """
import torch


class Source:
    def read(self, layer_id):
        return self.pool.get_value_buffer(layer_id)


class Reshape:
    def read(self, layer_id):
        return super().read(layer_id).view(-1, 8, 128)


class Window:
    def read(self, layer_id):
        return super().read(layer_id)[: self.used_slots]


class WholeBackend(Reshape, Source):
    def __init__(self, model_runner):
        self.pool = model_runner.token_to_kv_pool

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        return self.read(layer.layer_id).to(q.dtype)  # positive


class WindowBackend(Reshape, Window, Source):
    def __init__(self, model_runner, used_slots):
        self.pool = model_runner.token_to_kv_pool
        self.used_slots = used_slots

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        return self.read(layer.layer_id).to(q.dtype)  # negative
""",
    # f2: the class of self.x from constructions and a subclass's super().__init__ (TensorRT-LLM style)
    "param_class_from_callers_trtllm": """
import torch


class Res:
    def __init__(self, kv_cache_manager, i):
        self.mgr = kv_cache_manager
        self.i = i

    def data(self):
        return self.mgr.get_buffers(self.i)


class HeadRes(Res):
    def data(self):
        return super().data()[: self.mgr.max_blocks_per_seq]


class Attn:
    def __init__(self, res):
        self.res = res

    def forward(self, q, k, v, metadata):
        return self.res.data().to(q.dtype)  # positive


class HeadAttn(Attn):
    def __init__(self, mgr, i):
        super().__init__(HeadRes(mgr, i))

    def forward(self, q, k, v, metadata):
        return self.res.data().to(q.dtype)  # negative


def build(mgr, i):
    return Attn(Res(mgr, i))
""",
    # f1: an unannotated parameter whose every caller passes a handle object (sglang style)
    "handle_param_sglang": """
import torch


class Handle:
    def __init__(self, pool, layer_id):
        self.pool = pool
        self.layer_id = layer_id

    def whole(self):
        return self.pool.get_key_buffer(self.layer_id)

    def rows(self, loc):
        return self.pool.get_key_buffer(self.layer_id)[loc]


def upcast(h, dtype):
    return h.whole().to(dtype)  # positive


def pick(h, loc, dtype):
    return h.rows(loc).to(dtype)  # negative


class HandleBackend:
    def __init__(self, model_runner):
        self.pool = model_runner.token_to_kv_pool

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        h = Handle(self.pool, layer.layer_id)
        return upcast(h, q.dtype), pick(h, forward_batch.out_cache_loc, q.dtype)
""",
    # f1: SimpleNamespace bundles (lmdeploy style)
    "namespace_lmdeploy": """
import types

import torch


class NsImpl:
    def forward(self, query, key, value, k_cache, v_cache, attn_metadata):
        ns = types.SimpleNamespace(k=k_cache, offs=attn_metadata.block_offsets)
        kf = ns.k.float()  # positive
        of = ns.offs.long()  # negative
        return kf, of
""",
    # f1: weakref stand-ins (vLLM style)
    "weakref_vllm": """
import weakref

import torch


class Peek:
    def __init__(self, runner):
        self.runner = weakref.proxy(runner)
        self.ref = weakref.ref(runner)

    def execute_model(self, scheduler_output, i):
        a = self.runner.kv_caches[i].to(torch.float32)  # positive
        b = self.ref().kv_caches[i].to(torch.float32)  # positive
        c = self.runner.positions.to(torch.int64)  # negative
        return a, b, c
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
