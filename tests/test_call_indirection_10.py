"""Issue 19, round 10, call indirection (f4), in sglang, vLLM, lmdeploy and TRT-LLM styles, in shapes other
than family_recall_8's: class and static methods called through their class (`Cls.m(pool)`, a subclass's
`Sub.m(pool)` with another class attribute, `type(self).m(pool)`), an instance method called as
`Base.m(self, pool)`, and helpers wrapped by assignment (`_f = torch.compile(_f_impl, dynamic=True)`,
`torch.compile(mode=...)(_f_impl)`, `functools.lru_cache`, an alias of an alias, a compiled def or bound method held in
an attribute or a name: rules/accessors.toml [callables] function_wrappers). A helper only ever given the whole cache is
reported at its own conversion; one also given per-step tensors is reported at each call that passes the
cache. Each positive has look-alikes beside it (gathers, ids, scales, the query); the pruned analysis gives
the whole file's findings."""

from __future__ import annotations

import pytest

from castlint.tables import load_tables
from marked_cases import FILLER
from marked_cases import check as _check

TABLES = load_tables()

CASES = {
    "classmethod_converter_trtllm": """\
import torch


class LayerCast:
    target = torch.bfloat16

    @classmethod
    def dense(cls, buf):
        return buf.to(cls.target)  # positive: CL001

    @classmethod
    def rows(cls, buf, idx):
        return buf[idx].to(cls.target)  # negative: gathered blocks

    @staticmethod
    def ids(blocks):
        return torch.as_tensor(blocks, dtype=torch.int32)  # negative: block ids


class HalfLayerCast(LayerCast):
    target = torch.float16


class TrtAttention:
    def __init__(self, kv_cache_manager, layer_idx):
        self.mgr = kv_cache_manager
        self.layer_idx = layer_idx

    def forward(self, q, k, v, metadata):
        a = LayerCast.dense(self.mgr.get_buffers(self.layer_idx))  # negative: the helper's own line reports
        b = HalfLayerCast.dense(self.mgr.get_buffers(self.layer_idx))  # negative: the helper's own line reports
        idx = self.mgr.get_batch_cache_indices(metadata.request_ids)
        c = LayerCast.rows(self.mgr.get_buffers(self.layer_idx), idx)
        d = LayerCast.ids(self.mgr.get_block_ids_per_seq(metadata.request_ids))
        return a, b, c, d
""",
    "classmethod_mixed_callers_trtllm": """\
import torch


class Widen:
    @classmethod
    def run(cls, t, dtype):
        return t.to(dtype)  # negative: also given per-step tensors (each pool call reports)


class MixedAttention:
    def __init__(self, kv_cache_manager, layer_idx):
        self.mgr = kv_cache_manager
        self.layer_idx = layer_idx

    def forward(self, q, k, v, metadata):
        whole = Widen.run(self.mgr.get_buffers(self.layer_idx), q.dtype)  # positive: CL001
        scores = Widen.run(q, torch.float32)  # negative: the query
        return whole, scores
""",
    "staticmethod_via_type_self_vllm": """\
import torch


class CacheOps:
    @staticmethod
    def upcast(cache, dtype):
        return cache.to(dtype)  # positive: CL001

    @staticmethod
    def pick(cache, slots, dtype):
        return cache.flatten(0, 1)[slots].to(dtype)  # negative: the batch's slots


class OpsImpl(CacheOps):
    def forward(self, layer, query, key, value, kv_cache, attn_metadata, output):
        up = type(self).upcast(kv_cache, query.dtype)  # negative: the helper's own line reports
        part = CacheOps.pick(kv_cache, attn_metadata.slot_mapping, query.dtype)
        lens = attn_metadata.seq_lens.to(torch.int64)  # negative: lengths
        return up, part, lens
""",
    "compiled_assigned_helper_sglang": """\
import torch


def _widen_impl(buf, dtype):
    return buf.to(dtype)  # positive: CL001


_widen = torch.compile(_widen_impl, dynamic=True)


def _gather_impl(buf, locs, dtype):
    return buf[locs].to(dtype)  # negative: gathered rows


_gather = torch.compile(_gather_impl)


class CompiledBackend:
    def __init__(self, model_runner):
        self.pool = model_runner.token_to_kv_pool

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        lat = _widen(self.pool.get_key_buffer(layer.layer_id), q.dtype)  # negative: the helper's line reports
        rows = _gather(self.pool.get_key_buffer(layer.layer_id), forward_batch.out_cache_loc, q.dtype)
        return lat, rows
""",
    "compile_factory_alias_lmdeploy": """\
import functools
from typing import Callable

import torch


def _dense(k_cache, dtype):
    return k_cache.to(dtype)  # positive: CL001


def _scales(s, dtype):
    return s.to(dtype)  # negative: per-step scales


_dense_fast = torch.compile(mode="max-autotune-no-cudagraphs")(_dense)
_dense_again: Callable = _dense_fast
_scales_cached = functools.lru_cache(maxsize=None)(_scales)


class FactoryAttention:
    def forward(self, query, key, value, k_cache, v_cache, attn_metadata, k_scales_zeros=None, v_scales_zeros=None):
        kd = _dense_again(k_cache, query.dtype)  # negative: the helper's own line reports
        sc = _scales_cached(attn_metadata.q_seqlens, torch.float32)
        return kd, sc
""",
    "compiled_attribute_helper_sglang": """\
import torch


def _upcast(buf, dtype):
    return buf.to(dtype)  # positive: CL001


def _rows(buf, loc, dtype):
    return buf[loc].to(dtype)  # negative: the batch's rows


class HeldCompiledBackend:
    def __init__(self, model_runner):
        self.token_to_kv_pool = model_runner.token_to_kv_pool
        self.up = torch.compile(_upcast)
        self.rows = torch.compile(_rows, fullgraph=True)
        self.plain = _upcast

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        a = self.up(self.token_to_kv_pool.get_key_buffer(layer.layer_id), q.dtype)  # negative: helper line
        b = self.plain(self.token_to_kv_pool.get_value_buffer(layer.layer_id), q.dtype)  # negative: helper line
        loc = forward_batch.out_cache_loc
        c = self.rows(self.token_to_kv_pool.get_key_buffer(layer.layer_id), loc, q.dtype)
        return a, b, c
""",
    "compiled_mixed_callers_vllm": """\
import torch


def _cast_impl(t, dtype):
    return t.to(dtype)  # negative: also given the query (each pool call reports)


_cast = torch.compile(_cast_impl)


class MixedCompiledImpl:
    def forward(self, layer, query, key, value, kv_cache, attn_metadata, output):
        whole = _cast(kv_cache, query.dtype)  # positive: CL001
        q32 = _cast(query, torch.float32)  # negative: the query
        return whole, q32
""",
    "explicit_self_through_base_vllm": """\
import torch


class DenseBase:
    def dense(self, cache, dtype):
        return cache.to(dtype)  # positive: CL001

    def widen(self, t, dtype):
        return t.to(dtype)  # negative: also given lengths (each pool call reports)


class ExplicitSelfImpl(DenseBase):
    def forward(self, layer, query, key, value, kv_cache, attn_metadata, output):
        up = DenseBase.dense(self, kv_cache, query.dtype)  # negative: the helper's own line reports
        wide = DenseBase.widen(self, kv_cache, query.dtype)  # positive: CL001
        lens = type(self).widen(self, attn_metadata.seq_lens, torch.int64)  # negative: lengths
        return up, wide, lens
""",
    "compiled_bound_method_sglang": """\
import torch


class BoundCompiledBackend:
    def __init__(self, model_runner):
        self.token_to_kv_pool = model_runner.token_to_kv_pool
        self.up = torch.compile(self._up, dynamic=True)
        self.rows = torch.compile(self._rows)

    def _up(self, buf, dtype):
        return buf.to(dtype)  # positive: CL001

    def _rows(self, buf, loc, dtype):
        return buf[loc].to(dtype)  # negative: the batch's rows

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        up = self._up
        a = up(self.token_to_kv_pool.get_key_buffer(layer.layer_id), q.dtype)  # negative: helper line
        b = self.up(self.token_to_kv_pool.get_value_buffer(layer.layer_id), q.dtype)  # negative: helper line
        c = self.rows(self.token_to_kv_pool.get_key_buffer(layer.layer_id), forward_batch.out_cache_loc, q.dtype)
        return a, b, c
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


def test_wrappers_are_rules():
    # the wrappers that stand in for a function, and the decorators that bind a method to its class, are data
    assert {"torch.compile", "functools.lru_cache"} <= TABLES.function_wrappers
    assert {"classmethod", "staticmethod"} <= TABLES.class_bound_decorators
