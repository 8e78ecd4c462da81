"""Issue 19, round 11, call indirection (f4) and cross-module packages (f7), in sglang, vLLM, lmdeploy and
TRT-LLM styles, in shapes other than family_recall_9's:
- callables handed to runners (rules/accessors.toml [callables] runners, runners_after_one, runners_packed):
  `executor.submit(f, kv)`, `loop.run_in_executor(None, f, kv)`, `threading.Thread(target=f, args=(kv,))`,
  `asyncio.to_thread(f, kv)`, `pool.apply_async(f, (kv,))`; the function a fold applies and the stages it calls
  (`functools.reduce(lambda acc, f: f(acc), stages, buf)`); a lambda invoked where it is made;
- callables registered by decorators into a table (a classmethod's or a module function's `register(fmt)`, a
  hook list) and called from it; `functools.singledispatchmethod` overloads; a decorator object's (or a
  factory's) wrapper whose every wrapped call converts a whole pool, reported at its own cast;
- a generator resumed with `.send(pool)` (the `yield` expression's value);
- CL002 plan dtypes through `**ChainMap(...)`, `*itertools.repeat(dt, 2)`, `*itertools.chain(...)`,
  `*(geo + [dt] * 2)`, NamedTuple and dataclass fields left to their defaults, the unbound
  `BatchMLAPagedAttentionWrapper.plan` (called or in a partial), and a plan helper module that names no wrapper
  (told by the plan's arity).
A converter only ever given the whole cache is reported at its own cast; an unbound cast handed to a runner at
the runner's call. Each positive has look-alikes beside it (gathers, ids, lengths, scales, the query, setup-time
conversions, plans with the pool's dtype); the pruned analysis gives the whole file's findings, with and without
filler. The cross-module shapes (a held cast in a sibling module, `importlib.import_module`) are checked under
`follow-imports = "uses"`."""

from __future__ import annotations

from pathlib import Path

import pytest

from castlint.config import Config
from castlint.engine import check_paths, encoded_triggers, wanted
from castlint.tables import load_tables
from marked_cases import FILLER
from marked_cases import check as _check
from package_cases import fresh_tree_caches, write_tree

TABLES = load_tables()

CASES = {
    # -- runners ------------------------------------------------------------------------------
    "executor_submit_method_sglang": """\
from concurrent.futures import ThreadPoolExecutor

import torch


class OffloadBackend:
    def __init__(self, model_runner):
        self.workers = ThreadPoolExecutor(max_workers=4)
        self.dtype = model_runner.dtype
        self.warm = self.workers.submit(torch.Tensor.float, torch.zeros(4))  # negative: setup-time, small

    def _widen(self, t):
        return t.to(self.dtype)  # positive: CL001

    def _lens(self, n):
        return n.to(torch.int32)  # negative: only lengths are submitted here

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        pool = forward_batch.token_to_kv_pool
        a = self.workers.submit(self._widen, pool.get_key_buffer(layer.layer_id))
        b = self.workers.submit(torch.Tensor.half, pool.get_value_buffer(layer.layer_id))  # positive: CL001
        rows = pool.get_value_buffer(layer.layer_id)[forward_batch.out_cache_loc]
        c = self.workers.submit(torch.Tensor.half, rows)  # negative: gathered rows
        d = self.workers.submit(self._lens, forward_batch.seq_lens)
        e = self.workers.submit(torch.Tensor.long, forward_batch.req_pool_indices)  # negative: request ids
        return a.result(), b.result(), c.result(), d.result(), e.result()
""",
    "run_in_executor_vllm": """\
import asyncio

import torch


def _to_half(cache):
    return cache.half()  # positive: CL001


def _slots(mapping):
    return mapping.to(torch.int64)  # negative: only the slot mapping reaches it


class AsyncImpl:
    async def forward(self, layer, query, key, value, kv_cache, attn_metadata, output=None):
        loop = asyncio.get_running_loop()
        dense = await loop.run_in_executor(None, _to_half, kv_cache)
        slots = await loop.run_in_executor(None, _slots, attn_metadata.slot_mapping)
        kf = await loop.run_in_executor(None, torch.Tensor.float, kv_cache[0])  # positive: CL001
        qf = await asyncio.to_thread(torch.Tensor.float, query)  # negative: the query
        return dense, slots, kf, qf
""",
    "thread_target_lmdeploy": """\
import threading

import torch


class StagedAttention:
    def __init__(self):
        self.out = {}

    def _stage(self, name, cache, dtype):
        self.out[name] = cache.to(dtype)  # positive: CL001

    def _stage_offsets(self, offsets):
        self.out["off"] = offsets.long()  # negative: block offsets only

    def forward(self, query, key, value, k_cache, v_cache, attn_metadata, k_scales_zeros=None, v_scales_zeros=None):
        t1 = threading.Thread(target=self._stage, args=("k", k_cache, query.dtype))
        t2 = threading.Thread(target=self._stage_offsets, args=(attn_metadata.block_offsets,))
        t3 = threading.Thread(target=torch.Tensor.half, args=(v_cache,))  # positive: CL001
        t4 = threading.Thread(target=torch.Tensor.half, args=(k_scales_zeros,))  # negative: scales/zeros
        for t in (t1, t2, t3, t4):
            t.start()
        return self.out
""",
    "apply_async_trtllm": """\
import torch


def _dense(buf, dtype):
    return buf.to(dtype)  # positive: CL001


class PooledAttention:
    def __init__(self, layer_idx, pool):
        self.layer_idx = layer_idx
        self.procs = pool

    def forward(self, q, k, v, metadata):
        buf = metadata.kv_cache_manager.get_buffers(self.layer_idx)
        job = self.procs.apply_async(_dense, (buf, q.dtype))
        blocks = metadata.kv_cache_manager.get_block_ids_per_seq(metadata.request_ids[0])
        ids = torch.tensor(blocks, dtype=torch.int32)  # negative: block ids
        side = self.procs.apply_async(torch.Tensor.float, (q,))  # negative: the query
        return job.get(), ids, side.get()
""",
    "executor_map_method_vllm": """\
from concurrent.futures import ThreadPoolExecutor

import torch


class MapImpl:
    def __init__(self):
        self.ex = ThreadPoolExecutor(2)

    def _half(self, c):
        return c.half()  # positive: CL001

    def _ids(self, t):
        return t.long()  # negative: slot mappings only

    def forward(self, layer, query, key, value, kv_cache, attn_metadata, output=None):
        planes = list(self.ex.map(self._half, kv_cache))
        slots = list(self.ex.map(self._ids, [attn_metadata.slot_mapping]))
        return planes, slots
""",
    "module_container_caches_vllm": """\
import torch

_CACHES = {}
_LENS = {}


class Registrar:
    def register_kv_caches(self, kv_caches):
        for name, cache in kv_caches.items():
            _CACHES[name] = cache

    def note(self, name, lens):
        _LENS[name] = lens


class Reader:
    def forward(self, q, name):
        whole = _CACHES[name].float()  # positive: CL001
        lens = _LENS[name].long()  # negative: lengths
        return whole, lens
""",
    # -- folds and immediately invoked lambdas ------------------------------------------------
    "reduce_stage_tuple_sglang": """\
import functools

import torch


def _flat(t):
    return t.view(t.shape[0], -1)


def _upcast(t):
    return t.float()  # positive: CL001


class StagedBackend:
    STAGES = (_flat, _upcast)

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        pool = forward_batch.token_to_kv_pool
        keys = functools.reduce(lambda acc, step: step(acc), self.STAGES, pool.get_key_buffer(layer.layer_id))
        steps = (torch.as_tensor, lambda n: n.to(torch.int32))  # negative: lengths
        lens = functools.reduce(lambda acc, step: step(acc), steps, forward_batch.seq_lens)
        return q, keys, lens
""",
    "reduce_def_fold_vllm": """\
from functools import reduce

import torch


def _apply(acc, fn):
    return fn(acc)


class FoldImpl:
    def __init__(self):
        self.chain = [lambda t: t.permute(1, 0, 2, 3, 4), lambda t: t.to(torch.float16)]  # positive: CL001
        self.small = [lambda t: t.to(torch.int64)]  # negative: applied to the slot mapping only

    def forward(self, layer, query, key, value, kv_cache, attn_metadata, output=None):
        dense = reduce(_apply, self.chain, kv_cache)
        slots = reduce(lambda acc, fn: fn(acc), self.small, attn_metadata.slot_mapping)
        return dense, slots
""",
    "iife_in_comprehension_lmdeploy": """\
import torch


class IifeAttention:
    def forward(self, query, key, value, k_cache, v_cache, attn_metadata, k_scales_zeros=None, v_scales_zeros=None):
        planes = [(lambda c: c.to(query.dtype))(c) for c in (k_cache, v_cache)]  # positive: CL001
        offs = (lambda o: o.long())(attn_metadata.block_offsets)  # negative: block offsets
        rows = (lambda c: c.float())(k_cache[attn_metadata.block_offsets])  # negative: gathered blocks
        vf = (lambda c, d: c.to(d))(v_cache, torch.float32)  # positive: CL001
        return planes, offs, rows, vf
""",
    # -- registries filled by decorators ------------------------------------------------------
    "module_registry_decorator_vllm": """\
import torch

_READERS = {}


def reader(fmt):
    def deco(fn):
        _READERS[fmt] = fn
        return fn

    return deco


@reader("fp8")
def _fp8_dense(cache):
    return cache.to(torch.bfloat16)  # positive: CL001


@reader("int8")
def _int8_dense(cache):
    return cache.to(torch.float16)  # positive: CL001


def _by_name(fmt, slots):
    return slots.to(torch.int64)  # negative: slots, not registered


class RegistryImpl:
    def __init__(self, kv_cache_dtype):
        self.fmt = "fp8" if kv_cache_dtype == "fp8" else "int8"

    def forward(self, layer, query, key, value, kv_cache, attn_metadata, output=None):
        dense = _READERS[self.fmt](kv_cache)
        slots = _by_name(self.fmt, attn_metadata.slot_mapping)
        return dense, slots
""",
    "entry_table_defs_sglang": """\
import torch


def _widen(t):
    return t.float()  # negative: also given the query (each call that passes the pool reports)


def _narrow(t):
    return t.half()  # negative: also given the query


def _densify(t):
    return t.to(torch.bfloat16)  # positive: CL001


_CONV = {"fp32": _widen, "fp16": _narrow}
_ONLY = [_densify]


class EntryBackend:
    def __init__(self, mode):
        self.mode = mode

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        pool = forward_batch.token_to_kv_pool
        a = _CONV[self.mode](pool.get_key_buffer(layer.layer_id))  # positive: CL001
        b = _CONV[self.mode](q)  # negative: the query
        c = _ONLY[0](pool.get_value_buffer(layer.layer_id))
        d = _CONV[self.mode](pool.get_key_buffer(layer.layer_id)[forward_batch.out_cache_loc])  # negative: rows
        return a, b, c, d
""",
    "hook_list_decorator_sglang": """\
import torch


class HookedBackend:
    hooks = []
    scale_hooks = []

    @classmethod
    def on_layer(cls, fn):
        cls.hooks.append(fn)
        return fn

    @classmethod
    def on_scales(cls, fn):
        cls.scale_hooks.append(fn)
        return fn

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        pool = forward_batch.token_to_kv_pool
        outs = [h(pool.get_key_buffer(layer.layer_id)) for h in self.hooks]
        scales = [h(forward_batch.seq_lens) for h in self.scale_hooks]
        return q, outs, scales


@HookedBackend.on_layer
def _densify(buf):
    return buf.to(torch.bfloat16)  # positive: CL001


@HookedBackend.on_scales
def _lens(n):
    return n.to(torch.int32)  # negative: lengths only
""",
    "singledispatchmethod_typed_lmdeploy": """\
import functools

import torch


class DispatchAttention:
    @functools.singledispatchmethod
    def _up(self, x, dtype):
        raise NotImplementedError

    @_up.register(torch.Tensor)
    def _(self, x, dtype):
        return x.to(dtype)  # positive: CL001

    @_up.register(tuple)
    def _(self, x, dtype):
        return tuple(self._up(e, dtype) for e in x)

    def _ids(self, x):
        return x.long()  # negative: block offsets only

    def forward(self, query, key, value, k_cache, v_cache, attn_metadata, k_scales_zeros=None, v_scales_zeros=None):
        pair = self._up((k_cache, v_cache), query.dtype)
        offs = self._ids(attn_metadata.block_offsets)
        q16 = query.to(torch.float16)  # negative: the query
        return pair, offs, q16
""",
    # -- a decorator's wrapper ------------------------------------------------------------------
    "decorator_object_call_trtllm": """\
import torch


class Widen:
    def __init__(self, dtype):
        self.dtype = dtype

    def __call__(self, fn):
        def inner(*args, **kwargs):
            return fn(*args, **kwargs).to(self.dtype)  # positive: CL001

        return inner


class WidenedManagerView:
    def __init__(self, kv_cache_manager, layer_idx):
        self.mgr = kv_cache_manager
        self.layer_idx = layer_idx

    @Widen(torch.float16)
    def dense(self):
        return self.mgr.get_buffers(self.layer_idx)

    @Widen(torch.float32)
    def dense_next(self):
        return self.mgr.get_buffers(self.layer_idx + 1)


class ViewAttention:
    def __init__(self, kv_cache_manager, layer_idx):
        self.view = WidenedManagerView(kv_cache_manager, layer_idx)

    def forward(self, q, k, v, metadata):
        a = self.view.dense()  # negative: the wrapper's own line reports
        b = self.view.dense_next()  # negative: the wrapper's own line reports
        pos = metadata.position_ids.to(torch.int32)  # negative: positions
        return a, b, pos
""",
    "decorator_factory_mixed_sglang": """\
import functools

import torch


def upcast(dtype):
    def deco(fn):
        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            return fn(*args, **kwargs).to(dtype)  # negative: one wrapped getter gathers (each call reports)

        return wrapper

    return deco


class MixedGetters:
    def __init__(self, model_runner):
        self.pool = model_runner.token_to_kv_pool

    @upcast(torch.bfloat16)
    def whole(self, layer_id):
        return self.pool.get_key_buffer(layer_id)

    @upcast(torch.bfloat16)
    def rows(self, layer_id, loc):
        return self.pool.get_key_buffer(layer_id)[loc]

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        a = self.whole(layer.layer_id)  # positive: CL001
        b = self.rows(layer.layer_id, forward_batch.out_cache_loc)  # negative: gathered rows
        return q, a, b
""",
    # -- generators resumed with send() -------------------------------------------------------
    "generator_send_method_trtllm": """\
import torch


class SendAttention:
    def __init__(self, layer_idx, dtype=torch.bfloat16):
        self.layer_idx = layer_idx
        self.conv = self._converter(dtype)
        next(self.conv)
        self.ids = self._id_caster()
        next(self.ids)

    def _converter(self, dtype):
        got = None
        while True:
            raw = yield got
            got = raw.to(dtype)  # positive: CL001

    def _id_caster(self):
        got = None
        while True:
            raw = yield got
            got = raw.to(torch.int32)  # negative: block ids only

    def forward(self, q, k, v, metadata):
        dense = self.conv.send(metadata.kv_cache_manager.get_buffers(self.layer_idx))
        blk = self.ids.send(torch.as_tensor(metadata.kv_cache_manager.get_block_ids_per_seq(metadata.request_ids[0])))
        return dense, blk
""",
    "generator_send_local_vllm": """\
import torch


def _plane_caster():
    plane = yield
    while True:
        plane = yield plane.half()  # positive: CL001


class LocalSendImpl:
    def forward(self, layer, query, key, value, kv_cache, attn_metadata, output=None):
        caster = _plane_caster()
        caster.send(None)
        k_half = caster.send(kv_cache[0])
        v_half = caster.send(kv_cache[1])
        q_half = query.half()  # negative: the query
        return k_half, v_half, q_half
""",
    # -- CL002 ------------------------------------------------------------------------------------
    "plan_chainmap_dict_sglang": """\
import collections

from flashinfer.mla import BatchMLAPagedAttentionWrapper


class MergedPlanBackend:
    def __init__(self, model_runner, workspace):
        self.model_dtype = model_runner.dtype
        self.kv_cache_dtype = model_runner.kv_cache_dtype
        self.decode = BatchMLAPagedAttentionWrapper(workspace)
        self.verify = BatchMLAPagedAttentionWrapper(workspace)
        self.draft = BatchMLAPagedAttentionWrapper(workspace)

    def init_forward_metadata(self, forward_batch):
        m = forward_batch.plan_metadata
        base = {"q_data_type": self.model_dtype, "kv_data_type": self.model_dtype, "num_heads": 16}
        self.decode.plan(metadata=m, **collections.ChainMap({"page_size": 1}, base))  # positive: CL002
        own = {"kv_data_type": self.kv_cache_dtype}
        self.verify.plan(metadata=m, **collections.ChainMap(own, base))  # negative: the pool dtype first
        self.draft.plan(metadata=m, **dict(collections.ChainMap({}, base)))  # positive: CL002
""",
    "plan_repeat_chain_sglang": """\
import itertools

from flashinfer.mla import BatchMLAPagedAttentionWrapper


class RepeatPlanBackend:
    def __init__(self, model_runner, workspace):
        self.data_type = model_runner.dtype
        self.kv_cache_dtype = model_runner.kv_cache_dtype
        self.wrappers = [BatchMLAPagedAttentionWrapper(workspace) for _ in range(4)]

    def init_forward_metadata_replay_cuda_graph(
        self, bs, req_pool_indices, seq_lens, seq_lens_sum, encoder_lens, forward_mode, spec_info, seq_lens_cpu=None
    ):
        i = self.graph_indices
        geo = [i.qo_indptr, i.kv_indptr, i.kv_indices, seq_lens, 16, 512, 64, 1, False, i.sm_scale]
        w0, w1, w2, w3 = self.wrappers
        w0.plan(*itertools.chain(geo, itertools.repeat(self.data_type, 2)))  # positive: CL002
        w1.plan(*(geo + [self.data_type] * 2))  # positive: CL002
        w2.plan(*itertools.chain(geo, (self.data_type, self.kv_cache_dtype)))  # negative: kv is the pool dtype
        w3.plan(*geo, self.data_type, *itertools.repeat(self.kv_cache_dtype, 1))  # negative: kv is the pool dtype
""",
    "plan_dataclass_defaults_sglang": """\
import dataclasses

import torch
from flashinfer.mla import BatchMLAPagedAttentionWrapper


@dataclasses.dataclass
class MlaPlanDtypes:
    q: torch.dtype = torch.bfloat16
    kv: torch.dtype = dataclasses.field(default=torch.bfloat16)


class DataclassPlanBackend:
    def __init__(self, model_runner, workspace):
        self.kv_cache_dtype = model_runner.kv_cache_dtype
        self.a = BatchMLAPagedAttentionWrapper(workspace)
        self.b = BatchMLAPagedAttentionWrapper(workspace)
        self.c = BatchMLAPagedAttentionWrapper(workspace)

    def init_forward_metadata(self, forward_batch):
        m = forward_batch.mla_indices
        geo = (m.qo, m.kv, m.idx, m.lens, 16, 512, 64, 1, False, m.scale)
        self.c.plan(*geo, *dataclasses.astuple(MlaPlanDtypes()))  # positive: CL002
        self.c.plan(*geo, *dataclasses.astuple(MlaPlanDtypes(kv=self.kv_cache_dtype)))  # negative: pool dtype
        d = MlaPlanDtypes()
        self.a.plan(metadata=m.csr, num_heads=16, q_data_type=d.q, kv_data_type=d.kv)  # positive: CL002
        e = MlaPlanDtypes(kv=self.kv_cache_dtype)
        self.b.plan(metadata=m.csr, num_heads=16, q_data_type=e.q, kv_data_type=e.kv)  # negative: kv is the pool dtype
""",
    "plan_unbound_method_sglang": """\
from flashinfer.mla import BatchMLAPagedAttentionWrapper

import functools


class UnboundPlanBackend:
    def __init__(self, model_runner, workspace):
        self.data_type = model_runner.dtype
        self.kv_cache_dtype = model_runner.kv_cache_dtype
        self.w = BatchMLAPagedAttentionWrapper(workspace)
        self.v = BatchMLAPagedAttentionWrapper(workspace)
        self._plan_v = functools.partial(BatchMLAPagedAttentionWrapper.plan, self.v, causal=False)

    def init_forward_metadata(self, forward_batch):
        m = forward_batch.mla_indices
        geo = (m.qo, m.kv, m.idx, m.lens, 16, 512, 64, 1, False, m.scale)
        BatchMLAPagedAttentionWrapper.plan(self.w, *geo, self.data_type, self.data_type)  # positive: CL002
        BatchMLAPagedAttentionWrapper.plan(self.w, *geo, self.data_type, self.kv_cache_dtype)  # negative: pool dtype
        self._plan_v(metadata=m.csr, q_data_type=self.data_type, kv_data_type=self.data_type)  # positive: CL002
""",
    "plan_helper_module_no_wrapper_sglang": """\
class DecodePlanning:
    def _plan(self, w, md):
        w.plan(  # positive: CL002
            md.qo_indptr, md.kv_indptr, md.kv_indices, md.kv_lens, self.num_heads, 512, 64, 1, False, self.scale,
            self.q_dtype, self.q_dtype,
        )

    def _plan_native(self, w, md):
        w.plan(  # negative: the pool dtype
            md.qo_indptr, md.kv_indptr, md.kv_indices, md.kv_lens, self.num_heads, 512, 64, 1, False, self.scale,
            self.q_dtype, self.kv_cache_dtype,
        )

    def _schedule(self, s):
        return s.plan(self.num_heads)  # negative: not a wrapper's plan
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


def test_runners_and_senders_are_rules():
    # the calls that run a callable they are handed, and the generator resumers, are data
    assert {"submit", "asyncio.to_thread"} <= TABLES.runners
    assert "run_in_executor" in TABLES.runners_after_one
    assert "threading.Thread" in TABLES.runners_packed
    assert "send" in TABLES.generator_senders
    assert "collections.ChainMap" in TABLES.chain_maps
    assert "itertools.repeat" in TABLES.iter_repeat
    assert "importlib.import_module" in TABLES.module_importers


def test_a_plan_told_by_its_arity_passes_the_text_gate():
    # a mixin module that names no wrapper: the plan's arity (and a KV-cache dtype in reach) let it through
    source = CASES["plan_helper_module_no_wrapper_sglang"].encode()
    config = Config()
    assert wanted("planning.py", source, encoded_triggers(TABLES), TABLES, config)
    short = b"class S:\n    def go(self, s):\n        return s.plan(self.kv_cache_dtype)\n"
    assert not wanted("sched.py", short, encoded_triggers(TABLES), TABLES, config)


# -- cross-module (follow-imports = "uses") -------------------------------------------------------


@pytest.fixture()
def _own_tree_cache(tmp_path, monkeypatch):
    yield from fresh_tree_caches(tmp_path, monkeypatch)


def _findings(root: Path, follow, prune: bool = True) -> set:
    config = Config()
    config.follow_imports = follow
    config.cache = False
    config.prune = prune
    files = sorted(str(p) for p in root.rglob("*.py") if "tree-cache" not in str(p))
    run = check_paths(files, TABLES, config, jobs=1)
    assert not [e for r in run.results for e in r.errors]
    return {(str(Path(r.path).relative_to(root)), f.start.line) for r in run.results for f in r.findings}


def _marked(root: Path, word: str) -> set:
    out = set()
    for path in root.rglob("*.py"):
        for number, line in enumerate(path.read_text().splitlines(), 1):
            if word in line:
                out.add((str(path.relative_to(root)), number))
    return out


PACKAGES = {
    "held_casts_lmdeploy": {
        "pkg/__init__.py": "",
        "pkg/casts.py": """
            import functools
            import operator

            import torch

            widen = functools.partial(torch.Tensor.to, dtype=torch.float32)
            halve = operator.methodcaller("half")
            as_long = functools.partial(torch.Tensor.to, dtype=torch.int64)
        """,
        "pkg/attention.py": """
            from . import casts as c
            from .casts import widen


            class HeldCastAttention:
                def forward(self, query, key, value, k_cache, v_cache, attn_metadata, k_scales_zeros=None):
                    kw = widen(k_cache)  # positive: CL001
                    vh = c.halve(v_cache)  # positive: CL001
                    offs = c.as_long(attn_metadata.block_offsets)  # negative: block offsets
                    qw = widen(query)  # negative: the query
                    return kw, vh, offs, qw
        """,
    },
    "dynamic_import_sglang": {
        "pkg/__init__.py": "",
        "pkg/mem/__init__.py": "",
        "pkg/mem/arena.py": """
            import torch


            class LatentArena:
                def __init__(self, size, num_layers, device="cuda"):
                    fp8 = torch.float8_e4m3fn
                    self.planes = [torch.zeros(size + 1, 1, 576, dtype=fp8, device=device) for _ in range(num_layers)]
                    self.lens = torch.zeros(256, dtype=torch.int32, device=device)

                def plane(self, layer_id):
                    return self.planes[layer_id]
        """,
        "pkg/backend.py": """
            import importlib

            import torch

            arena_mod = importlib.import_module("pkg.mem.arena")


            class DynamicBackend:
                def __init__(self, size, num_layers):
                    self.arena = arena_mod.LatentArena(size, num_layers)

                def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
                    lat = self.arena.plane(layer.layer_id).to(q.dtype)  # positive: CL001
                    loc = forward_batch.out_cache_loc
                    rows = self.arena.plane(layer.layer_id)[loc].to(q.dtype)  # negative: gathered rows
                    lens = self.arena.lens[forward_batch.req_pool_indices].long()  # negative: lengths
                    return lat, rows, lens
        """,
    },
}


@pytest.mark.usefixtures("_own_tree_cache")
@pytest.mark.parametrize("name", sorted(PACKAGES))
def test_packages_under_uses(tmp_path, name):
    write_tree(tmp_path, PACKAGES[name])
    found = _findings(tmp_path, "uses")
    positives, negatives = _marked(tmp_path, "# positive"), _marked(tmp_path, "# negative")
    assert positives and negatives
    assert positives <= found
    assert found & negatives == set()
    assert _findings(tmp_path, "uses", prune=False) == found
