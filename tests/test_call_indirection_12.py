"""Issue 19, round 12, call indirection (f4), engine accessors and backends (f6) and cross-module helpers
(f7), in sglang, vLLM, lmdeploy and TRT-LLM styles other than family_recall_10's:
- a callable run by a context made for it (rules/accessors.toml [callables] runner_makers,
  made_runner_methods): `ctx = contextvars.copy_context(); ctx.run(f, kv)` runs f(kv);
- `operator.attrgetter("m")(x)` called is `x.m(...)`; `map(f, xs, itertools.repeat(v))` hands f both;
- a converter closure a factory returns, called through a name, and a class defined inside a per-step
  method whose instance is called: their own cast is reported when every call passes the pool;
- CL002: `w.plan(*geometry, q_dt, kv_dt)` (a spread of unknown length before the dtypes), a dtype pair
  read from a dict keyed by an Enum member, a KV-cache dtype in reach through vLLM's `kv_cache_dtype`
  parameter;
- an accessor returning a dict of converted layers (CL004), lmdeploy's graph-runner `__call__`
  (past_key_values), an Ascend `npu_format_cast` that keeps the layer whole;
- under `follow-imports = "uses"`: a helper module whose functions only its sibling importers call
  (a `try`/`except ImportError` pair of implementations, a coroutine).
Each positive has look-alikes beside it (gathers, lengths, scales, the query, setup-time conversions, plans
with the pool's dtype); the pruned analysis gives the whole file's findings, with and without filler."""

from __future__ import annotations

import pytest

from castlint.tables import load_tables
from marked_cases import FILLER
from marked_cases import check as _check
from package_cases import write_tree
from test_call_indirection_11 import _findings, _marked, _own_tree_cache  # noqa: F401

TABLES = load_tables()

CASES = {
    "context_run_method_sglang": """\
import contextvars

import torch


class CopiedContextBackend:
    def __init__(self, model_runner):
        self.dtype = model_runner.dtype
        self.graph = model_runner.graph

    def _densify(self, t):
        return t.to(self.dtype)  # positive: CL001

    def _lens(self, n):
        return n.to(torch.int32)  # negative: only lengths are run here

    def _rows(self, t):
        return t.float()  # negative: handed to a run() of an object no context made

    def forward_extend(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        pool = forward_batch.token_to_kv_pool
        ctx = contextvars.copy_context()
        dense = ctx.run(self._densify, pool.get_value_buffer(layer.layer_id))
        lens = contextvars.copy_context().run(self._lens, forward_batch.seq_lens)
        other = self.graph.run(self._rows, pool.get_key_buffer(layer.layer_id))
        return dense, lens, other
""",
    "context_run_lambda_trtllm": """\
import contextvars

import torch


class ContextLambdaAttention:
    def __init__(self, layer_idx):
        self.layer_idx = layer_idx
        self._ctx = contextvars.Context()

    def forward(self, q, k, v, attn_metadata):
        buf = attn_metadata.kv_cache_manager.get_buffers(self.layer_idx)
        up = self._ctx.run(lambda t: t.to(q.dtype), buf)  # positive: CL001
        ids = self._ctx.run(lambda t: t.to(torch.int64), attn_metadata.seq_lens)  # negative: lengths
        return up, ids
""",
    "attrgetter_method_lmdeploy": """\
from operator import attrgetter

import torch


class FetchedMethodAttention:
    def forward(self, query, key, value, k_cache, v_cache, attn_metadata, k_scales_zeros=None):
        kf = attrgetter("float")(k_cache)()  # positive: CL001
        vt = attrgetter("to")(v_cache)(query.dtype)  # positive: CL001
        qf = attrgetter("float")(query)()  # negative: the query
        offs = attrgetter("block_offsets")(attn_metadata).to(torch.int64)  # negative: block offsets
        rows = attrgetter("to")(k_cache[attn_metadata.block_offsets])(query.dtype)  # negative: gathered rows
        return kf, vt, qf, offs, rows
""",
    "map_with_repeat_vllm": """\
import itertools

import torch


class RepeatMapImpl:
    def forward(self, layer, query, key, value, kv_cache, attn_metadata, output=None):
        planes = kv_cache.unbind(0)
        dense = list(map(torch.Tensor.to, planes, itertools.repeat(torch.float16)))  # positive: CL001
        steps = list(map(torch.Tensor.to, (key, value), itertools.repeat(kv_cache.dtype)))  # negative: this step
        ids = list(map(torch.Tensor.to, [attn_metadata.slot_mapping], itertools.repeat(torch.int64)))  # negative: ids
        return dense, steps, ids
""",
    "factory_closure_lmdeploy": """\
import functools

import torch


@functools.lru_cache(maxsize=8)
def make_caster(dt):
    def cast(t):
        return t.to(dt)  # positive: CL001

    return cast


def make_index(dt):
    return lambda t: t.to(dt)  # negative: only offsets are indexed with it


class ClosureAttention:
    def forward(self, query, key, value, k_cache, v_cache, attn_metadata, k_scales_zeros=None):
        caster = make_caster(query.dtype)
        k = caster(k_cache)
        idx = make_index(torch.int64)
        offs = idx(attn_metadata.block_offsets)
        return k, offs
""",
    "local_class_method_vllm": """\
import torch


class LocalConverterImpl:
    def forward(self, layer, query, key, value, kv_cache, attn_metadata, output=None):
        class Widen:
            def __init__(self, dt):
                self.dt = dt

            def apply(self, t):
                return t.to(self.dt)  # positive: CL001

        class Ids:
            def __call__(self, t):
                return t.to(torch.int64)  # negative: only slot ids

        dense = Widen(query.dtype).apply(kv_cache)
        slots = Ids()(attn_metadata.slot_mapping)
        return dense, slots
""",
    "plan_spread_geometry_sglang": """\
from flashinfer.mla import BatchMLAPagedAttentionWrapper


class SpreadGeometryBackend:
    def __init__(self, model_runner, workspace):
        self.dtype = model_runner.dtype
        self.kv_cache_dtype = model_runner.kv_cache_dtype
        self.wrapper = BatchMLAPagedAttentionWrapper(workspace)

    def init_forward_metadata(self, forward_batch):
        geo = forward_batch.plan_geometry
        if forward_batch.forward_mode.is_decode():
            self.wrapper.plan(*geo, self.dtype, self.dtype)  # positive: CL002
        else:
            self.wrapper.plan(*geo, self.dtype, self.kv_cache_dtype)  # negative: the pool's dtype
""",
    "plan_enum_pairs_vllm": """\
import enum

import torch
from flashinfer.mla import BatchMLAPagedAttentionWrapper


class Phase(enum.IntEnum):
    PREFILL = 0
    DECODE = 1


class EnumPairsMLAImpl:
    def __init__(self, vllm_config, workspace, kv_cache_dtype):
        self.model_dtype = vllm_config.model_config.dtype
        self.kv_dtype = torch.float8_e4m3fn if kv_cache_dtype.startswith("fp8") else self.model_dtype
        self.pairs = {
            Phase.PREFILL: (self.model_dtype, self.kv_dtype),
            Phase.DECODE: (self.model_dtype, self.model_dtype),
        }
        self.wrapper = BatchMLAPagedAttentionWrapper(workspace)

    def forward_mqa(self, q, kv_c_and_k_pe_cache, attn_metadata, layer):
        md = attn_metadata.plan_args
        self.wrapper.plan(*md, *self.pairs[Phase.DECODE])  # positive: CL002
        self.wrapper.plan(*md, *self.pairs[Phase.PREFILL])  # negative: the kv dtype
        return self.wrapper.run(q, kv_c_and_k_pe_cache)
""",
    "keyword_plan_kv_dtype_param_vllm": """\
from flashinfer.mla import BatchMLAPagedAttentionWrapper


class KeywordPlanImpl:
    def __init__(self, vllm_config, workspace, kv_cache_dtype):
        self.dtype = vllm_config.model_config.dtype
        self.cache_dtype = vllm_config.cache_config.cache_dtype_torch
        self.w = BatchMLAPagedAttentionWrapper(workspace)

    def forward_mqa(self, q, kv_c_and_k_pe_cache, attn_metadata, layer):
        md = attn_metadata.decode_metadata
        if md.upcast:
            self.w.plan(metadata=md, q_data_type=self.dtype, kv_data_type=self.dtype)  # positive: CL002
        else:
            self.w.plan(metadata=md, q_data_type=self.dtype, kv_data_type=self.cache_dtype)  # negative: pool dtype
        return self.w.run(q, kv_c_and_k_pe_cache)
""",
    "dict_accessor_cl004_lmdeploy": """\
import torch


class WideCacheEngine:
    def __init__(self, gpu_cache, dtype):
        self.gpu_cache = gpu_cache
        self.dtype = dtype

    def wide_layer(self, layer_idx):
        key_cache, value_cache = self.gpu_cache[layer_idx]
        return {"key": key_cache.float(), "value": value_cache.to(self.dtype)}  # positive: CL004

    def lens_of(self, layer_idx, seq_lens):
        return {"lens": seq_lens.to(torch.int64)}  # negative: lengths

    def block_rows(self, layer_idx, blocks):
        key_cache, value_cache = self.gpu_cache[layer_idx]
        return {"key": key_cache[blocks].float()}  # negative: gathered blocks


class WideReader:
    def forward(self, query, key, value, attn_metadata):
        wide = attn_metadata.cache_engine.wide_layer(attn_metadata.layer_idx)
        return wide["key"], query.to(wide["key"].dtype)  # negative: the query
""",
    "graph_runner_call_lmdeploy": """\
import torch


class GraphRunner:
    def __init__(self, model, dtype):
        self.model = model
        self.dtype = dtype
        self.buffers = {}

    def capture(self, past_key_values):
        self.buffers["kv"] = [k.half() for k, _ in past_key_values]  # negative: capture

    def __call__(self, input_ids, position_ids, past_key_values, attn_metadata, inputs_embeds=None):
        widened = [k_cache.to(self.dtype) for k_cache, _ in past_key_values]  # positive: CL001
        pos = position_ids.to(torch.int64)  # negative: positions
        return self.model(input_ids, pos, widened, attn_metadata)
""",
    "npu_format_cast_sglang": """\
import torch
import torch_npu


class AscendReplay:
    def __init__(self, model_runner, dtype):
        self.pool = model_runner.token_to_kv_pool
        self.dtype = dtype

    def replay(self, forward_batch, layer_id):
        nz = self.pool.get_value_buffer(layer_id).npu_format_cast(2)
        up = nz.to(self.dtype)  # positive: CL001
        fmt = torch_npu.npu_format_cast(self.pool.get_key_buffer(layer_id), 29)  # negative: dtype kept
        rows = torch_npu.npu_format_cast(fmt[forward_batch.out_cache_loc], 2).to(self.dtype)  # negative: rows
        return up, rows
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


def test_the_new_facts_are_rules():
    assert "contextvars.copy_context" in TABLES.runner_makers
    assert "run" in TABLES.made_runner_methods
    assert "kv_cache_dtype" in TABLES.kv_cache_dtype_holders
    assert "torch_npu.npu_format_cast" in TABLES.view_functions


# -- cross-module (follow-imports = "uses") -------------------------------------------------------

PACKAGES = {
    "import_fallback_helpers_sglang": {
        "pkg/__init__.py": "",
        "pkg/fast_ops.py": """
            import torch


            def widen_layer(buf, dt):
                return buf.to(dt)  # positive: CL001


            def widen_ids(ids):
                return ids.to(torch.int64)  # negative: only lengths are given
        """,
        "pkg/slow_ops.py": """
            def widen_layer(buf, dt):
                return buf.float() if dt is None else buf.to(dt)  # positive: CL001


            def shared_cast(t, dt):
                return t.to(dt)  # negative: one importer gives it the query
        """,
        "pkg/backend.py": """
            try:
                from .fast_ops import widen_ids, widen_layer
            except ImportError:
                from .slow_ops import widen_layer
            from .slow_ops import shared_cast


            class FallbackBackend:
                def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
                    pool = forward_batch.token_to_kv_pool
                    lat = widen_layer(pool.get_key_buffer(layer.layer_id), q.dtype)
                    ids = widen_ids(forward_batch.seq_lens)
                    qq = shared_cast(q, pool.get_key_buffer(layer.layer_id).dtype)
                    return lat, ids, qq
        """,
    },
    "coroutine_helper_vllm": {
        "pkg/__init__.py": "",
        "pkg/staging.py": """
            import asyncio

            import torch


            async def to_host_dtype(layer_cache, dt):
                await asyncio.sleep(0)
                return layer_cache.to(dt)  # positive: CL001


            async def to_ids(slots):
                return slots.to(torch.int32)  # negative: slot mapping
        """,
        "pkg/offload.py": """
            import asyncio

            import torch

            from .staging import to_host_dtype as stage, to_ids


            class OffloadConnector:
                def __init__(self, vllm_config, role):
                    self.loop = asyncio.new_event_loop()

                def save_kv_layer(self, layer_name, kv_layer, attn_metadata, **kwargs):
                    done = self.loop.run_until_complete(stage(kv_layer, torch.bfloat16))
                    ids = self.loop.run_until_complete(to_ids(attn_metadata.slot_mapping))
                    return done, ids
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


@pytest.mark.usefixtures("_own_tree_cache")
def test_importers_are_not_followed_by_default(tmp_path):
    write_tree(tmp_path, PACKAGES["coroutine_helper_vllm"])
    assert ("pkg/staging.py", 8) not in _findings(tmp_path, False)
