"""Round 26 (family_recall_24), in sglang, vLLM, lmdeploy and TRT-LLM styles other than the corpus's:
- a cast callable handed back as a value by a function or method (`return torch.Tensor.half`,
  `return operator.methodcaller("to", d)`, `return functools.partial(torch.Tensor.to, dtype=d)`), held in a
  local or an attribute and applied to a pool: the pool converted; None-branches and scales are not;
- a class constructed in a step method with a pool (a dataclass's `__post_init__`, an `__init__`, a base's
  `__init__` a subclass runs) converts it on every step, in this module or a sibling one; a class made
  only at setup (in another `__init__`) converts once;
- the element class of an annotated container (`list[X]`, `Sequence["X"]`, `dict[str, X]` values,
  `Optional[...]`, `X | None`, `tuple[X, ...]`, `Tuple[X, Y]` by position) given to what iterating,
  indexing, `.values()`, `.items()`, `next(iter(...))` read: a list of non-pool objects holds no pool.
Each positive has look-alikes beside it; the pruned analysis gives the whole file's findings, with and
without filler."""

from __future__ import annotations

import pytest

from marked_cases import assert_marked_lines, assert_pruned_is_whole, check, marks
from package_cases import fresh_tree_caches, marked_lines, tree_findings, write_tree

RETURNED = {
    "policy_returns_unbound_float_lmdeploy": """\
import torch


class DequantPolicy:
    def __init__(self, quant_policy):
        self.quant_policy = quant_policy

    def upcaster(self):
        if self.quant_policy == 8:
            return torch.Tensor.float
        return None

    def scale_upcaster(self):
        return torch.Tensor.float


class PagedAttentionImpl:
    def __init__(self, policy):
        self.policy = DequantPolicy(policy)

    def forward(self, query, key, value, k_cache, v_cache, attn_metadata, k_scales_zeros=None):
        up = self.policy.upcaster()
        if up is None:
            return self._paged(query, k_cache, v_cache, attn_metadata)
        k_rows = up(k_cache[attn_metadata.block_offsets])  # negative: blocks selected first
        k_wide = up(k_cache)  # positive: CL001 the whole key cache through the returned unbound method
        sz = self.policy.scale_upcaster()(k_scales_zeros)  # negative: the scales
        q = up(query)  # negative: the query
        return k_rows, k_wide, sz, q
""",
    "factory_returns_methodcaller_sglang": """\
import operator

import torch


def make_widener(dtype):
    return operator.methodcaller("to", dtype)


def make_mover(device):
    return operator.methodcaller("to", device)


class WideDecodeBackend:
    def __init__(self, model_runner):
        self.widen = make_widener(torch.bfloat16)
        self.move = make_mover("cpu")

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        pool = forward_batch.token_to_kv_pool
        k_buf = pool.get_key_buffer(layer.layer_id)
        wide = self.widen(k_buf)  # positive: CL001 the whole key buffer through the held methodcaller
        rows = self.widen(k_buf[forward_batch.out_cache_loc])  # negative: the step's rows first
        host = self.move(k_buf)  # negative: a device move
        return wide, rows, host, self.widen(q)  # negative: the query
""",
    "staticmethod_returns_partial_trtllm": """\
import functools

import torch


class KVDequant:
    @staticmethod
    def converter(dtype):
        return functools.partial(torch.Tensor.to, dtype=dtype)


class TrtllmAttention:
    def __init__(self, layer_idx, kv_cache_manager):
        self.layer_idx = layer_idx
        self.kv_cache_manager = kv_cache_manager
        self.cvt = KVDequant.converter(torch.float16)

    def forward(self, q, k, v, attn_metadata):
        buf = self.kv_cache_manager.get_buffers(self.layer_idx)
        dense = self.cvt(buf)  # positive: CL001 the whole layer buffer through the returned partial
        rows = self.cvt(buf[attn_metadata.kv_lens_cuda])  # negative: rows first
        return dense, rows, self.cvt(attn_metadata.kv_scale)  # negative: a scale tensor
""",
    "module_table_entry_returned_vllm": """\
import torch

_UPCASTS = {"fp8": torch.Tensor.half, "fp8_e5m2": torch.Tensor.half, "auto": None}
_SCALE_UP = torch.Tensor.float


class KVUpcastSpec:
    def __init__(self, kv_cache_dtype):
        self.kv_cache_dtype = kv_cache_dtype

    def upcast(self):
        return _UPCASTS[self.kv_cache_dtype] or getattr(torch.Tensor, "float")

    def scale_upcast(self):
        return _SCALE_UP


class DenseFallbackImpl:
    def __init__(self, kv_cache_dtype):
        self.spec = KVUpcastSpec(kv_cache_dtype)

    def forward(self, layer, query, key, value, kv_cache, attn_metadata, output=None):
        up = self.spec.upcast()
        key_cache = kv_cache[0]
        dense = up(key_cache)  # positive: CL001 every key slot through the table's entry
        live = up(key_cache[attn_metadata.block_table])  # negative: blocks selected first
        sc = self.spec.scale_upcast()(layer._k_scale)  # negative: a scale
        return dense, live, sc
""",
}

CONSTRUCTED = {
    "dataclass_post_init_per_step_lmdeploy": """\
from dataclasses import dataclass, field

import torch


@dataclass
class DenseCopy:
    cache: torch.Tensor
    dtype: torch.dtype = torch.float32
    dense: torch.Tensor = field(init=False)

    def __post_init__(self):
        self.dense = self.cache.to(self.dtype)  # positive: CL001 the whole cache the agent passes per step


@dataclass
class WarmCopy:
    cache: torch.Tensor
    dense: torch.Tensor = field(init=False)

    def __post_init__(self):
        self.dense = self.cache.to(torch.float32)  # negative: constructed once, at setup


class RecordingAgent:
    def __init__(self, cache_engine):
        self.cache_engine = cache_engine
        self.warm = WarmCopy(cache_engine.gpu_cache[0][0])
        self.kept = []

    def _async_model_forward(self, inputs, swap_in_map, swap_out_map):
        for idx in range(len(self.cache_engine.gpu_cache)):
            self.kept.append(DenseCopy(self.cache_engine.gpu_cache[idx][1]))
        return inputs
""",
    "init_converts_argument_sglang": """\
import torch


class WideView:
    def __init__(self, buf, dtype, device):
        self.wide = buf.to(dtype)  # positive: CL001 the whole buffer the backend hands it per step
        self.moved = buf.to(device)  # negative: a device move
        self.first = buf[:1].to(dtype)  # negative: one row


class ViewBackend:
    def __init__(self, model_runner):
        self.device = model_runner.device

    def forward_extend(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        view = WideView(forward_batch.token_to_kv_pool.get_value_buffer(layer.layer_id), q.dtype, self.device)
        return view.wide
""",
    "base_init_subclass_made_per_step_vllm": """\
import torch


class _Upcast:
    def __init__(self, kv_cache):
        self.planes = kv_cache.float()  # positive: CL001 the whole layer cache, every step


class KeyUpcast(_Upcast):
    pass


class ScaleUpcast:
    def __init__(self, scale):
        self.scale = scale.float()  # negative: a scale tensor


class UpcastImpl:
    def forward(self, layer, query, key, value, kv_cache, attn_metadata, output=None):
        up = KeyUpcast(kv_cache)
        sc = ScaleUpcast(layer._k_scale)
        return up.planes, sc.scale
""",
}

_POOLS = """\
import torch
from typing import Dict, List, Optional, Sequence, Tuple


class LatentPool:
    def __init__(self, size, layers):
        self.planes = [torch.empty(size, 1, 576, dtype=torch.float8_e4m3fn) for _ in range(layers)]


class StepRows:
    def __init__(self):
        self.planes = [torch.empty(32, 1, 576, dtype=torch.float8_e4m3fn)]
"""

ANNOTATED = {
    "list_attribute_annotation_sglang": _POOLS
    + """

class RowsBackend:
    def __init__(self):
        self.sources: list[StepRows] = []

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        out = [src.planes[0].to(q.dtype) for src in self.sources]  # negative: step rows only
        return out


class LatentBackend:
    def __init__(self, sources: "Sequence[LatentPool]"):
        self.sources = sources

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        for src in self.sources:
            whole = src.planes[layer.layer_id].to(q.dtype)  # positive: CL001 a whole latent layer
        return whole
""",
    "dict_values_items_next_vllm": _POOLS
    + """

class RowsImpl:
    def __init__(self, by_name: Dict[str, StepRows], maybe: Optional[List[StepRows]] = None):
        self.by_name = by_name
        self.maybe = maybe

    def forward(self, layer, query, key, value, kv_cache, attn_metadata, output=None):
        a = [r.planes[0].float() for r in self.by_name.values()]  # negative: rows
        for name, r in self.by_name.items():
            a.append(r.planes[0].half())  # negative: rows
        first = next(iter(self.maybe))
        b = first.planes[0].float()  # negative: rows
        c = self.by_name.get("draft").planes[0].float()  # negative: rows
        return a, b, c


class PoolImpl:
    def __init__(self, by_name: "dict[str, LatentPool] | None"):
        self.by_name = by_name

    def forward(self, layer, query, key, value, kv_cache, attn_metadata, output=None):
        for name, p in self.by_name.items():
            w = p.planes[0].float()  # positive: CL001 a whole pool layer
        return w
""",
    "tuple_by_position_trtllm": _POOLS
    + """

class PairAttention:
    pair: Tuple[LatentPool, StepRows]
    rows: "tuple[StepRows, ...]"

    def forward(self, q, k, v, attn_metadata):
        whole = self.pair[0].planes[0].to(q.dtype)  # positive: CL001 the pool half of the pair
        rows = self.pair[1].planes[0].to(q.dtype)  # negative: the rows half
        last = self.rows[-1].planes[0].to(q.dtype)  # negative: rows
        return whole, rows, last
""",
    "union_elements_isinstance_lmdeploy": _POOLS
    + """

class MixedAgent:
    def _async_model_forward(self, inputs, swap_in_map, swap_out_map):
        return self._dense(inputs.sources, inputs.layer_idx), self._rows(inputs.rows)

    def _dense(self, srcs: "list[LatentPool | StepRows]", layer_idx):
        out = []
        for i, src in enumerate(srcs):
            if isinstance(src, LatentPool):
                out.append(src.planes[layer_idx].float())  # positive: CL001 a whole pool layer
            else:
                out.append(src.planes[0].float())  # negative: the rows class only
        return out

    def _rows(self, rows: Optional[List[StepRows]]):
        return [r.planes[0].half() for r in sorted(rows, key=id)]  # negative: rows
""",
}

PACKAGES = {
    "sibling_dataclass_trtllm": {
        "trt_pkg/__init__.py": "",
        "trt_pkg/dense.py": """
            from dataclasses import dataclass

            import torch


            @dataclass
            class DenseLayer:
                buf: torch.Tensor
                dtype: torch.dtype = torch.bfloat16

                def __post_init__(self):
                    self.wide = self.buf.to(self.dtype)  # positive: CL001 the whole layer, per step


            @dataclass
            class ScaleLayer:
                scale: torch.Tensor

                def __post_init__(self):
                    self.wide = self.scale.float()  # negative: a scale
        """,
        "trt_pkg/attention.py": """
            from .dense import DenseLayer, ScaleLayer


            class DenseTrtllmAttention:
                def __init__(self, layer_idx):
                    self.layer_idx = layer_idx

                def forward(self, q, k, v, attn_metadata):
                    buf = attn_metadata.kv_cache_manager.get_buffers(self.layer_idx)
                    d = DenseLayer(buf)
                    s = ScaleLayer(attn_metadata.kv_scale)
                    return d.wide, s.wide
        """,
    },
}

ALL = {**RETURNED, **CONSTRUCTED, **ANNOTATED}


@pytest.mark.parametrize("name", sorted(ALL))
def test_marked_lines(tmp_path, name):
    assert_marked_lines(tmp_path, name, ALL[name])


@pytest.mark.parametrize("filler", [False, True])
@pytest.mark.parametrize("name", sorted(ALL))
def test_pruned_is_whole(tmp_path, name, filler):
    assert_pruned_is_whole(tmp_path, name, ALL[name], filler)
    path = tmp_path / f"{name}.py"  # (the file assert_pruned_is_whole wrote) and the pruned findings are the marks
    assert {(code, line) for code, line, _ in check(path, True)} == marks(ALL[name])[0]


@pytest.fixture
def _tree_cache(tmp_path, monkeypatch):
    yield from fresh_tree_caches(tmp_path, monkeypatch)


@pytest.mark.parametrize("prune", [True, False])
@pytest.mark.parametrize("name", sorted(PACKAGES))
def test_sibling_construction(tmp_path, name, prune, _tree_cache):
    write_tree(tmp_path, PACKAGES[name])
    expected = marked_lines(tmp_path)
    assert expected
    assert tree_findings(tmp_path, prune=prune) == expected
