"""Issue 19, round 19 (family_recall_17: f4's closures and dispatch tables), in sglang, vLLM, lmdeploy and
TRT-LLM styles other than the corpus's:
- a closure a factory returns (a module-level def or a method; a nested def, decorated by a transparent
  wrapper or not, or a lambda), held as `self.x = make(d)` and called per step with a whole pool: the
  nested def's parameters take the call's arguments, its free variables the factory call's (the pruner
  sends such files to the analysis);
- a FlashInfer plan inside such a closure whose dtypes are the factory's parameters: CL002 at the plan when
  the factory's call passes the same dtype for q and kv;
- a base's template method calling `self.m(kv_cache, ...)` with an engine's convention cache runs every
  subclass override of m: the override's parameter keeps the cache's layout (`kv_cache[0]` is a plane);
- a dict (or list) display of lambdas read through a subscript into a local name and called with a whole
  pool: each lambda's own conversion is reported (once, at the lambda), not the call.
Each positive has look-alikes beside it; the pruned analysis gives the whole file's findings, with and
without filler."""

from __future__ import annotations

import pytest

from marked_cases import assert_marked_lines, assert_pruned_is_whole

CASES = {
    "closure_factory_method_sglang": """\
import torch


class TritonUpcastBackend:
    def __init__(self, model_runner):
        self.pool = model_runner.token_to_kv_pool
        self._up = self._make_upcast(torch.bfloat16)
        self._rows = self._make_rows(torch.bfloat16)

    def _make_upcast(self, dt):
        def upcast(buf):
            return buf.to(dt)  # some callers pass a batch tensor: reported at the pool's callers

        return upcast

    def _make_rows(self, dt):
        def rows(buf, loc):
            return buf[loc].to(dt)  # negative: gathered rows

        return rows

    def forward_decode(self, q, k, v, layer, forward_batch):
        k_buf = self.pool.get_key_buffer(layer.layer_id)
        wide = self._up(k_buf)  # positive: CL001
        picked = self._rows(k_buf, forward_batch.out_cache_loc)
        small = self._up(k)  # the step's new keys: a batch tensor
        return wide, picked, small
""",
    "closure_lambda_factory_lmdeploy": """\
import torch


def make_dequant(scale_dtype):
    return lambda cache, sz: cache.to(scale_dtype) * sz


def make_scale_cast(scale_dtype):
    return lambda sz: sz.to(scale_dtype)  # negative: scales only


class DequantPagedImpl:
    def __init__(self):
        self.dequant = make_dequant(torch.float16)
        self.scale_cast = make_scale_cast(torch.float16)

    def forward(self, query, key, value, past_key_value, attn_metadata, k_scales_zeros=None):
        k_cache, v_cache = past_key_value
        k = self.dequant(k_cache, k_scales_zeros)
        sz = self.scale_cast(k_scales_zeros)
        return k, sz
""".replace("cache.to(scale_dtype) * sz", "cache.to(scale_dtype) * sz  # positive: CL001", 1),
    "closure_compiled_trtllm": """\
import torch


def build_reader(compute_dtype):
    @torch.compile(dynamic=True)
    def read_layer(buf):
        return buf.to(compute_dtype)  # positive: CL001

    return read_layer


def build_head_reader(compute_dtype):
    def read_head(buf, n):
        return buf[:n].to(compute_dtype)  # negative: the first n blocks

    return read_head


class DraftLayerReader:
    def __init__(self, kv_cache_manager):
        self.mgr = kv_cache_manager
        self.read = build_reader(torch.bfloat16)
        self.head = build_head_reader(torch.bfloat16)

    def forward(self, attn_metadata, layer_idx):
        buf = self.mgr.get_buffers(layer_idx)
        return self.read(buf), self.head(buf, 4)
""",
    "closure_plan_dtypes_sglang": """\
import torch


def make_planner(wrapper, q_dt, kv_dt):
    def plan(qo_indptr, kv_indptr, kv_indices, kv_lens):
        wrapper.plan(  # positive: CL002
            qo_indptr, kv_indptr, kv_indices, kv_lens, 16, 512, 64, 1, False, 0.1,
            q_dt,
            kv_dt,
        )

    return plan


def make_good_planner(wrapper, q_dt, kv_dt):
    def plan(qo_indptr, kv_indptr, kv_indices, kv_lens):
        wrapper.plan(  # negative: q in the model dtype, kv in the cache's
            qo_indptr, kv_indptr, kv_indices, kv_lens, 16, 512, 64, 1, False, 0.1,
            q_dt,
            kv_dt,
        )

    return plan


class MLAClosureBackend:
    def __init__(self, model_runner, decode_wrapper, verify_wrapper):
        self.kv_cache_dtype = model_runner.kv_cache_dtype
        self._decode = make_planner(decode_wrapper, model_runner.dtype, model_runner.dtype)
        self._verify = make_good_planner(verify_wrapper, model_runner.dtype, model_runner.kv_cache_dtype)

    def init_forward_metadata(self, forward_batch):
        m = forward_batch.metadata
        self._decode(m.qo_indptr, m.kv_indptr, m.kv_indices, m.kv_lens)
        self._verify(m.qo_indptr, m.kv_indptr, m.kv_indices, m.kv_lens)
""",
    "lambda_table_dispatch_vllm": """\
import torch


class TorchSDPAImpl:
    def __init__(self, kv_cache_dtype):
        self.kv_cache_dtype = kv_cache_dtype
        self._widen = {
            "fp8": lambda cache, dt: cache.to(dt),  # one caller passes queries: the pool's callers
            "auto": lambda cache, dt: cache,
        }
        self._picks = {
            "fp8": lambda cache, ids, dt: cache[ids].to(dt),  # negative: gathered blocks
            "auto": lambda cache, ids, dt: cache[ids],
        }

    def forward(self, layer, query, key, value, kv_cache, attn_metadata, output=None):
        key_cache, value_cache = kv_cache.unbind(0)
        widen = self._widen[self.kv_cache_dtype]
        k = widen(key_cache, query.dtype)  # positive: CL001
        v = widen(value_cache, query.dtype)  # positive: CL001
        pick = self._picks[self.kv_cache_dtype]
        rows = pick(key_cache, attn_metadata.block_table[0], query.dtype)
        q = widen(query, torch.float32)  # the step's queries
        return k, v, rows, q
""",
    "template_override_layout_vllm": """\
import torch


class PlaneReaderBase:
    def read_key(self, kv_cache, dtype):
        return kv_cache[0]

    def read_rows(self, kv_cache, rows, dtype):
        return kv_cache[0][rows]

    def forward(self, layer, query, key, value, kv_cache, attn_metadata, output=None):
        k = self.read_key(kv_cache, query.dtype)
        r = self.read_rows(kv_cache, attn_metadata.block_table[0], query.dtype)
        return k, r


class WidePlaneReader(PlaneReaderBase):
    def read_key(self, kv_cache, dtype):
        return kv_cache[0].to(dtype)  # positive: CL001

    def read_rows(self, kv_cache, rows, dtype):
        return kv_cache[0][rows].to(dtype)  # negative: one request's blocks


class NativePlaneReader(PlaneReaderBase):
    def read_key(self, kv_cache, dtype):
        return kv_cache[0].to(dtype=kv_cache.dtype)  # negative: the cache's own dtype

    def probe(self, kv_cache):
        return kv_cache[0].float()  # negative: nothing visible calls it with a cache
""",
    "lambda_list_dispatch_trtllm": """\
import torch


class LayerDumper:
    def __init__(self, kv_cache_manager, mode):
        self.mgr = kv_cache_manager
        self.mode = mode
        self.readers = [
            lambda buf: buf,
            lambda buf: buf.to(torch.float32),  # positive: CL001
        ]
        self.heads = [lambda buf: buf[:8].float()]  # negative: eight blocks

    def on_step(self, scheduled_requests, layer_idx):
        buf = self.mgr.get_buffers(layer_idx)
        read = self.readers[self.mode]
        head = self.heads[0]
        return read(buf), head(buf)
""",
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_marked_lines(tmp_path, name):
    assert_marked_lines(tmp_path, name, CASES[name])


@pytest.mark.parametrize("name", sorted(CASES))
@pytest.mark.parametrize("filler", [False, True], ids=["as-is", "with-filler"])
def test_pruned_is_whole(tmp_path, name, filler):
    assert_pruned_is_whole(tmp_path, name, CASES[name], filler)
