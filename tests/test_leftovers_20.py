"""Issue 19, round 20 (family_recall_18 leftovers), in sglang, vLLM, lmdeploy and TRT-LLM styles other than
the corpus's:
- `for name, t in d.items()` over a dict display of constant keys, t read under a test of name (str methods
  of [containers] key_tests, ==, !=, in, not in, not/and/or, a comprehension's `if`, an earlier
  `if ...: continue`): t is only the entries whose key passes the test;
- a bound method handed to a base's `__init__` (by keyword or position), stored there (`self.fn = fn or
  self._default`) and called per step with the whole cache: the subclass's method runs with those arguments;
- attribution: an override of a learnt reader (a method reading only another object's accessor) that converts
  what `super().m()` hands it converts for its backend (CL001); a pool class's method returning one plane
  (`self.kv[i][which]`) of the pairs it allocates, converted, is a pool accessor (CL004).
Each positive has look-alikes beside it; the pruned analysis gives the whole file's findings, with and
without filler."""

from __future__ import annotations

import pytest

from marked_cases import assert_marked_lines, assert_pruned_is_whole

CASES = {
    "sink_prefix_window_trtllm": """\
import torch


class StreamingSinkReader:
    def __init__(self, kv_cache_manager, sink_blocks=1, num_blocks=4096):
        self.mgr = kv_cache_manager
        self.sink_blocks = sink_blocks
        self.num_blocks = num_blocks

    def forward(self, q, metadata, layer_idx):
        buf = self.mgr.get_buffers(layer_idx)
        sinks = buf[: self.sink_blocks].float()  # negative: the attention-sink blocks only
        kept = buf[: self.num_blocks].float()  # positive: CL001 every block of the pool
        return sinks, kept
""",
    "dict_items_key_in_tuple_sglang": """\
import torch


class KVSender:
    def __init__(self, model_runner):
        self.pool = model_runner.token_to_kv_pool

    def parts(self, layer_id):
        return {
            "k": self.pool.get_key_buffer(layer_id),
            "v": self.pool.get_value_buffer(layer_id),
            "k_scale": self.pool.k_scales[layer_id],
        }

    def forward_extend(self, q, k, v, layer, forward_batch):
        out = {}
        for part, t in self.parts(layer.layer_id).items():
            if part in ("k", "v"):
                out[part] = t.to(torch.bfloat16)  # positive: CL001
            else:
                out[part] = t.float()  # negative: the scale entry only
        return out
""",
    "dict_items_comprehension_filter_vllm": """\
import torch


class PlaneExporter:
    def planes(self, kv_cache, layer):
        return {"key": kv_cache[0], "value": kv_cache[1], "scale": layer._k_scale}

    def forward(self, layer, query, key, value, kv_cache, attn_metadata):
        d = self.planes(kv_cache, layer)
        wide = {n: t.to(query.dtype) for n, t in d.items() if not n.endswith("scale")}  # positive: CL001
        scales = {n: t.float() for n, t in d.items() if n.startswith("sc") or n == "zero"}  # negative: the scale
        for n, t in d.items():
            if n != "scale":
                continue
            scales[n] = t.to(query.dtype)  # negative: past the continue, only the scale
        return wide, scales
""",
    "dict_items_unknown_test_trtllm": """\
import torch


class Formatter:
    def __init__(self, kv_cache_manager, wanted):
        self.kv_cache_manager = kv_cache_manager
        self.wanted = wanted

    def entries(self, layer_idx):
        buf = self.kv_cache_manager.get_buffers(layer_idx)
        return {"kv_scale": self.kv_cache_manager.kv_scales[layer_idx], "key": buf[:, 0]}

    def _forward_step(self, layer_idx):
        out = []
        for name, t in self.entries(layer_idx).items():
            if name in self.wanted:
                out.append(t.to(torch.float16))  # positive: CL001 (any key may pass an unknown test)
            if name.upper() == "KV_SCALE":
                out.append(t.float())  # positive: CL001 (upper is no key test of the table)
            if name.endswith("_scale") and name.startswith("kv"):
                out.append(t.double())  # negative: only kv_scale passes both
        return out
""",
    "bound_method_positional_super_init_vllm": """\
import torch


class FallbackImplBase:
    def __init__(self, num_heads, widen_fn=None):
        self.num_heads = num_heads
        self.widen_fn = widen_fn if widen_fn is not None else self._identity

    def _identity(self, kv_cache, dtype):
        return kv_cache

    def forward(self, layer, query, key, value, kv_cache, attn_metadata):
        kv = self.widen_fn(kv_cache, query.dtype)
        return self._attend(query, kv, attn_metadata)

    def _attend(self, query, kv, attn_metadata):
        return query


class Fp8WholeImpl(FallbackImplBase):
    def __init__(self, num_heads):
        super().__init__(num_heads, self._dequant)

    def _dequant(self, kv_cache, dtype):
        return kv_cache.view(torch.float8_e4m3fn).to(dtype)  # positive: CL001

    def _dequant_rows(self, kv_cache, rows, dtype):
        return kv_cache[:, rows].to(dtype)  # negative: rows of the batch, never handed to the base


class Fp8RowsImpl(FallbackImplBase):
    def __init__(self, num_heads, rows):
        super().__init__(num_heads, widen_fn=self._gathered)
        self.rows = rows

    def _gathered(self, kv_cache, dtype):
        return kv_cache[:, self.rows].to(dtype)  # negative: the rows this impl keeps
""",
    "bound_method_held_attribute_lmdeploy": """\
import torch


class PagedAttention:
    def __init__(self, fast):
        self.upcast = (fast and self._native) or self._upcast_whole

    def _native(self, k_cache, v_cache, dtype):
        return k_cache, v_cache

    def _upcast_whole(self, k_cache, v_cache, dtype):
        return k_cache.to(dtype), v_cache.to(dtype)  # positive: CL001

    def forward(self, query, key, value, past_key_value, attn_metadata):
        k_cache, v_cache = past_key_value
        k, v = self.upcast(k_cache, v_cache, query.dtype)
        scale = attn_metadata.k_scales.to(query.dtype)  # negative: a scale
        return query * scale, k, v
""",
    "reader_override_vs_pool_accessor_sglang": """\
import torch


class Backend:
    class Reader:
        def __init__(self, backend):
            self.backend = backend

        def layer_kv(self, layer):
            pool = self.backend.token_to_kv_pool
            return pool.get_key_buffer(layer.layer_id), pool.get_value_buffer(layer.layer_id)

    reader_cls = Reader

    def __init__(self, model_runner):
        self.token_to_kv_pool = model_runner.token_to_kv_pool
        self.reader = self.reader_cls(self)

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        kb, vb = self.reader.layer_kv(layer)
        return self._run(q, kb, vb)

    def _run(self, q, kb, vb):
        return q


class WideBackend(Backend):
    class Reader(Backend.Reader):
        def layer_kv(self, layer):
            kb, vb = super().layer_kv(layer)
            return kb.to(torch.float16), vb.to(torch.float16)  # positive: CL001

    reader_cls = Reader


class PairPool:
    def __init__(self, n, size, head_num, head_dim):
        shape = (size + 1, head_num, head_dim)
        self.kv = [(torch.empty(shape, dtype=torch.uint8), torch.empty(shape, dtype=torch.uint8)) for _ in range(n)]

    def widened(self, layer_id, half):
        return self.kv[layer_id][half].view(torch.float8_e4m3fn).to(torch.bfloat16)  # positive: CL004

    def widened_rows(self, layer_id, half, loc):
        return self.kv[layer_id][half][loc].view(torch.float8_e4m3fn).to(torch.bfloat16)  # negative: rows

    def pair(self, layer_id):
        return self.kv[layer_id]


class PairBackend:
    def __init__(self, pool):
        self.pool = pool

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        kb = self.pool.widened(layer.layer_id, 0)
        rows = self.pool.widened_rows(layer.layer_id, 1, forward_batch.out_cache_loc)
        return q, kb, rows
""",
    "singledispatch_register_type_lmdeploy": """\
import functools

import torch


@functools.singledispatch
def to_compute(cache, dtype, blocks=None):
    raise TypeError(type(cache))


@to_compute.register(torch.Tensor)
def _(cache, dtype, blocks=None):
    return cache.to(dtype)  # positive: CL001


@to_compute.register(list)
def _(cache, dtype, blocks=None):
    return [c[blocks].to(dtype) for c in cache]  # negative: the blocks of each


class Attention:
    def forward(self, query, key, value, past_key_value, attn_metadata):
        k_cache, v_cache = past_key_value
        k = to_compute(k_cache, query.dtype)
        new = to_compute([key, value], query.dtype)  # negative: this step's keys and values, the list overload
        return query, k, new
""",
    "singledispatchmethod_tuple_argument_vllm": """\
import functools

import torch


class Densifier:
    def __init__(self, dtype):
        self.dtype = dtype

    @functools.singledispatchmethod
    def widen(self, kv, rows=None):
        raise TypeError(type(kv))

    @widen.register
    def _(self, kv: torch.Tensor, rows=None):
        return kv.to(self.dtype)  # positive: CL001

    @widen.register
    def _(self, kv: tuple, rows=None):
        return tuple(t[:, rows].to(self.dtype) for t in kv)  # negative: rows of each plane


class TorchFallbackImpl:
    def __init__(self):
        self.densify = Densifier(torch.bfloat16)

    def forward(self, layer, query, key, value, kv_cache, attn_metadata):
        whole = self.densify.widen(kv_cache)
        fresh = self.densify.widen((key, value), attn_metadata.block_table)  # negative: new tokens, tuple overload
        return query, whole, fresh
""",
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_marked_lines(tmp_path, name):
    assert_marked_lines(tmp_path, name, CASES[name])


@pytest.mark.parametrize("name", sorted(CASES))
@pytest.mark.parametrize("filler", [False, True], ids=["as-is", "with-filler"])
def test_pruned_is_whole(tmp_path, name, filler):
    assert_pruned_is_whole(tmp_path, name, CASES[name], filler)
