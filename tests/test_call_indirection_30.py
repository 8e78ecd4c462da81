"""Round 30 (issue 19: call indirection), in sglang, vLLM, lmdeploy and TensorRT-LLM styles other than the
blind corpora's:
- a runner method of a module class that calls its callable parameter with its other parameters
  (`def timed(self, tag, fn, *args, **kwargs): return fn(*args, **kwargs)`): `obj.timed("k", torch.Tensor.to,
  kv, dtype)` runs the cast on the cache (a module function runner too, when what it is handed is a cast);
- composed callables: a fold of a composing function over callables the file shows (`reduce(lambda f, g:
  lambda x: g(f(x)), (a, b))`, as it is or returned by a `*fns` factory, either order) applies each stage to
  what the one before gives;
- a plan's dtype arguments from any container or call the file shows: `d.get(key, (q, q))` spread with `*`
  (the default when the key may be missing), `**obj.method()` returning a dict of `self.x` fields (read on the
  receiver), dtypes bound by `functools.partial` / `partialmethod` of the plan helper (reported at the helper's
  plan), `operator.methodcaller("plan", ...)(wrapper)`;
- a cache read by `getattr(obj, NAME)` of a name bound to a cache attribute's name: the pruner reads it too;
- across modules: a converting function of a sibling module handed as a value to a method that calls it
  with a cache.
Each positive has look-alikes beside it; the pruned analysis gives the whole file's findings, with and
without filler."""

# ruff: noqa: E501
from __future__ import annotations

import pytest

from marked_cases import assert_marked_lines, assert_pruned_is_whole
from package_cases import fresh_tree_caches, marked_lines, tree_findings, write_tree

CASES = {
    # -- runner methods that call their callable parameter ---------------------------------------------------
    "runner_method_profiler_sglang": """\
import torch


class RegionProfiler:
    def __init__(self):
        self.spans = []

    def timed(self, tag, fn, *args, **kwargs):
        out = fn(*args, **kwargs)
        self.spans.append(tag)
        return out


class TorchNativeDecode:
    def __init__(self, model_runner):
        self.prof = RegionProfiler()
        self.act_dtype = model_runner.dtype

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        pool = forward_batch.token_to_kv_pool
        keys = pool.get_key_buffer(layer.layer_id)
        dense = self.prof.timed("widen", torch.Tensor.to, keys, self.act_dtype)  # positive: CL001 every slot
        rows = self.prof.timed("rows", torch.Tensor.to, keys[forward_batch.out_cache_loc], self.act_dtype)  # negative: rows first
        moved = self.prof.timed("move", torch.Tensor.to, keys, q.device)  # negative: a device move
        qq = self.prof.timed("q", torch.Tensor.to, q, self.act_dtype)  # negative: the query
        return dense, rows, moved, qq
""",
    "runner_method_keywords_lmdeploy": """\
import torch


class StageClock:
    def measure(self, label, /, func, *args, **kwargs):
        return func(*args, **kwargs)


class PagedFallback:
    def __init__(self):
        self.clock = StageClock()

    def forward(self, query, k_cache, v_cache, attn_metadata):
        v = self.clock.measure("v", torch.Tensor.to, v_cache, dtype=query.dtype)  # positive: CL001 the whole value cache
        kb = self.clock.measure("blocks", torch.index_select, k_cache, 0, attn_metadata.block_offsets)  # negative: selection
        s = self.clock.measure("scale", torch.Tensor.to, attn_metadata.k_scales, dtype=query.dtype)  # negative: scales
        return v, kb, s
""",
    "runner_function_cast_vllm": """\
import torch


def _traced(name, fn, *args, **kwargs):
    return fn(*args, **kwargs)


class TritonDebugImpl:
    def forward(self, layer, query, key, value, kv_cache, attn_metadata, output=None):
        wide = _traced("kv", torch.Tensor.float, kv_cache)  # positive: CL001 the whole layer cache
        q = _traced("q", torch.Tensor.float, query)  # negative: the query
        new = _traced("new", torch.Tensor.float, key)  # negative: this step's keys
        return wide, q, new
""",
    # -- composed callables ------------------------------------------------------------------------------------
    "compose_factory_trtllm": """\
import functools

import torch


def pipeline(*stages):
    return functools.reduce(lambda first, then: lambda t: then(first(t)), stages)


class TrtllmFallbackAttention:
    def __init__(self, layer_idx, dtype):
        self.layer_idx = layer_idx
        self.dense = pipeline(torch.Tensor.contiguous, functools.partial(torch.Tensor.to, dtype=dtype))
        self.host = pipeline(torch.Tensor.contiguous, functools.partial(torch.Tensor.to, device="cpu"))

    def forward(self, q, k, v, metadata):
        buf = metadata.kv_cache_manager.get_buffers(self.layer_idx)
        whole = self.dense(buf)  # positive: CL001 the whole layer through a composed cast
        pages = self.dense(buf[metadata.block_ids])  # negative: the batch's blocks first
        host = self.host(buf)  # negative: a device move
        return whole, pages, host, self.dense(q)  # negative: the query
""",
    "compose_backward_factory_sglang": """\
import functools

import torch


def chain(*fns):
    return functools.reduce(lambda outer, inner: lambda x: outer(inner(x)), fns)


class DenseKVBackend:
    def __init__(self, model_runner):
        self.upcast = chain(functools.partial(torch.Tensor.to, dtype=torch.float32), torch.Tensor.contiguous)
        self.flat = chain(torch.Tensor.flatten, torch.Tensor.contiguous)

    def forward_extend(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        pool = forward_batch.token_to_kv_pool
        kv = pool.get_value_buffer(layer.layer_id)
        up = self.upcast(kv)  # positive: CL001 contiguous, then float, of the whole value buffer
        flat = self.flat(kv)  # negative: no dtype change
        part = self.upcast(kv[forward_batch.out_cache_loc])  # negative: rows first
        return up, flat, part
""",
    # -- plan dtypes through containers and calls ------------------------------------------------------------
    "plan_get_default_pair_trtllm": """\
import torch


class FlashInferTrtllmMetadata:
    def __init__(self, decode_wrapper: "BatchDecodeWithPagedKVCacheWrapper", model_dtype, kv_cache_dtype):
        self.decode_wrapper = decode_wrapper
        self.dtype_by_phase = {"generation": (model_dtype, kv_cache_dtype)}
        self.model_dtype = model_dtype

    def prepare(self, phase, indptr, indices, last_len, heads, kv_heads, head_dim, page):
        pair = self.dtype_by_phase.get(phase, (self.model_dtype, self.model_dtype))
        self.decode_wrapper.plan(indptr, indices, last_len, heads, kv_heads, head_dim, page, "NONE", -1, None, *pair)  # positive: CL002 a missing phase plans kv as the model dtype
        ok = self.dtype_by_phase.get("generation", (self.model_dtype, self.model_dtype))
        self.decode_wrapper.plan(indptr, indices, last_len, heads, kv_heads, head_dim, page, "NONE", -1, None, *ok)  # negative: the key is there
        self.window = torch.tensor([page], dtype=torch.int32)  # negative: metadata
""",
    "plan_method_dict_vllm": """\
from dataclasses import dataclass

import torch


@dataclass
class PlanDtypes:
    q: torch.dtype
    kv: torch.dtype

    def as_kwargs(self):
        return {"q_data_type": self.q, "kv_data_type": self.kv}


class FlashInferMLABuilder:
    def __init__(self, kv_cache_spec, vllm_config, wrapper):
        self.wrapper = wrapper
        self.same = PlanDtypes(vllm_config.model_config.dtype, vllm_config.model_config.dtype)
        self.cache = PlanDtypes(vllm_config.model_config.dtype, kv_cache_spec.dtype)

    def build(self, m):
        self.wrapper.plan(m.qo_indptr, m.kv_indptr, m.kv_indices, m.kv_lens, 16, 512, 64, 1, False, 0.1, **self.same.as_kwargs())  # positive: CL002 kv planned as the model dtype
        self.wrapper.plan(m.qo_indptr, m.kv_indptr, m.kv_indices, m.kv_lens, 16, 512, 64, 1, False, 0.1, **self.cache.as_kwargs())  # negative: the cache's dtype
        return m
""",
    "plan_partial_bound_lmdeploy": """\
import functools

import torch


class FlashInferDecodePlanner:
    def __init__(self, wrapper, kv_cache_dtype):
        self.wrapper = wrapper
        self.kv_cache_dtype = kv_cache_dtype
        self.plan_half = functools.partial(self._plan, q_dtype=torch.float16, kv_dtype=torch.float16)
        self.plan_cache = functools.partial(self._plan, q_dtype=torch.float16, kv_dtype=kv_cache_dtype)

    def _plan(self, qo_indptr, kv_indptr, kv_indices, kv_lens, q_dtype, kv_dtype):
        self.wrapper.plan(  # positive: CL002 dtypes bound by a partial, kv planned as q
            qo_indptr, kv_indptr, kv_indices, kv_lens, 16, 512, 64, 1, False, 0.1, q_dtype, kv_dtype
        )

    def step(self, meta):
        self.plan_half(meta.qo, meta.kv, meta.idx, meta.lens)
        self.plan_cache(meta.qo, meta.kv, meta.idx, meta.lens)
        return torch.zeros(4, dtype=torch.int32)  # negative: metadata
""",
    "plan_methodcaller_sglang": """\
import operator

import torch


class FlashInferMLAIndicesUpdater:
    def __init__(self, model_runner, wrappers):
        self.wrappers = wrappers
        self.q_dtype = model_runner.dtype
        self.kv_dtype = model_runner.kv_cache_dtype

    def update(self, qo, kv_indptr, kv_indices, kv_lens):
        same = operator.methodcaller(
            "plan", qo, kv_indptr, kv_indices, kv_lens, 16, 512, 64, 1, False, 0.1, self.q_dtype, self.q_dtype
        )
        native = operator.methodcaller(
            "plan", qo, kv_indptr, kv_indices, kv_lens, 16, 512, 64, 1, False, 0.1, self.q_dtype, self.kv_dtype
        )
        same(self.wrappers[0])  # positive: CL002 the methodcaller plans kv as q
        native(self.wrappers[1])  # negative: the cache's own dtype
        return torch.arange(4, dtype=torch.int32)  # negative: metadata
""",
    # -- getattr by a name held in a constant -------------------------------------------------------------------
    "getattr_class_constant_vllm": """\
import torch


class MirrorConnectorWorker:
    CACHE_FIELD = "kv_cache"
    SCALE_FIELD = "_v_scale"

    def save_kv_layer(self, layer_name, kv_layer, attn_metadata, **kwargs):
        layer = self._layers[layer_name]
        cache = getattr(layer, self.CACHE_FIELD)[0]
        self._copies[layer_name] = cache.to(torch.float32)  # positive: CL001 the layer's whole cache
        scale = getattr(layer, self.SCALE_FIELD)
        self._scales[layer_name] = scale.to(torch.float32)  # negative: a scale
""",
    "getattr_init_attribute_lmdeploy": """\
import torch


class CacheSnapshot:
    def __init__(self, cache_engine):
        self.cache_engine = cache_engine
        self.field = "gpu_cache"

    def forward(self, query, attn_metadata):
        caches = getattr(self.cache_engine, self.field)
        out = []
        for k_cache, v_cache in caches:
            out.append(k_cache.to(query.dtype))  # positive: CL001 every block of a layer's key cache
            out.append(v_cache[attn_metadata.block_offsets].to(query.dtype))  # negative: the batch's blocks
        return out
""",
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_marked_lines(tmp_path, name):
    assert_marked_lines(tmp_path, name, CASES[name])


@pytest.mark.parametrize("name", sorted(CASES))
@pytest.mark.parametrize("filler", [False, True], ids=["as-is", "with-filler"])
def test_pruned_is_whole(tmp_path, name, filler):
    assert_pruned_is_whole(tmp_path, name, CASES[name], filler)


PACKAGES = {
    "handed_encoder_vllm": {
        "wire/__init__.py": "",
        "wire/codecs.py": """
            import torch


            def full_layer(kv_layer, dtype):
                return kv_layer.to(dtype)  # positive: CL001 the whole layer, handed as a callable


            def slots_only(kv_layer, dtype, slot_mapping):
                return kv_layer.flatten(0, 1)[slot_mapping].to(dtype)  # negative: the step's slots first
        """,
        "wire/connector.py": """
            import torch

            from vllm.distributed.kv_transfer.kv_connector.v1.base import KVConnectorBase_V1

            from .codecs import full_layer, slots_only


            class WireConnector(KVConnectorBase_V1):
                def __init__(self, vllm_config, role):
                    super().__init__(vllm_config, role)
                    self.dtype = torch.bfloat16
                    self.sent = []

                def _send(self, kv_layer, codec, *more):
                    self.sent.append(codec(kv_layer, self.dtype, *more))

                def save_kv_layer(self, layer_name, kv_layer, attn_metadata, **kwargs):
                    if attn_metadata is None:
                        self._send(kv_layer, full_layer)
                    else:
                        self._send(kv_layer, slots_only, attn_metadata.slot_mapping)
        """,
    },
}


@pytest.fixture
def tree_cache(tmp_path, monkeypatch):
    yield from fresh_tree_caches(tmp_path, monkeypatch)


@pytest.mark.parametrize("name", sorted(PACKAGES))
def test_handed_functions_across_modules(tmp_path, tree_cache, name):
    write_tree(tmp_path, PACKAGES[name])
    expected = marked_lines(tmp_path)
    assert expected
    assert tree_findings(tmp_path) == expected
    assert tree_findings(tmp_path, prune=False) == expected
