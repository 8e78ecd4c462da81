"""Round 29 (family_recall_27), helper r29b: callables and values reached through run-time structure, in sglang,
vLLM, lmdeploy and TRT-LLM styles other than the corpus's:
- deferred-call queues: `(callable, args)` / `(callable, kwargs)` / `(callable, *args)` tuples appended per step
  and run in a loop (`for fn, args in q: fn(*args)`), and `functools.partial` objects queued and called: the
  callee's parameters receive the queued arguments, element by element (a job's callable with its own
  arguments only);
- `operator.attrgetter` / `itemgetter` results as values: a tuple of plan dtypes spread into a FlashInfer MLA
  plan (CL002), a `(device, dtype)` pair spread into `.to()` (CL001), held in a local, a self attribute or a
  class attribute;
- a callable picked at run time from a display (`(f, g)[flag]`, `{True: f, False: g}[flag]`,
  `{...}.get(k, g)`, `(f if c else g)(...)`): every element may be the callee; the pruner follows it as
  it follows `f if c else g`.
Each positive has look-alikes beside it; the pruned analysis gives the whole file's findings, with and
without filler."""

# ruff: noqa: E501
from __future__ import annotations

import pytest

from marked_cases import assert_marked_lines, assert_pruned_is_whole, check, marks

CASES = {
    # -- deferred-call queues ---------------------------------------------------------------------
    "queue_fn_args_wait_for_save_vllm": """\
import torch

from vllm.distributed.kv_transfer.kv_connector.v1.base import KVConnectorBase_V1


class PackingConnector(KVConnectorBase_V1):
    def __init__(self, vllm_config, role):
        super().__init__(vllm_config, role)
        self.pack_dtype = torch.float16
        self._todo = []

    def _pack(self, kv_layer):
        return kv_layer.to(self.pack_dtype)  # positive: CL001 the layer's whole paged cache, run from a (fn, args) queue

    def _offload(self, kv_layer):
        return kv_layer.to("cpu", non_blocking=True)  # negative: a device move

    def _pack_blocks(self, kv_layer, block_ids):
        return kv_layer[:, block_ids].to(self.pack_dtype)  # negative: the request's blocks

    def save_kv_layer(self, layer_name, kv_layer, attn_metadata, **kwargs):
        self._todo.append((self._pack, (kv_layer,)))
        self._todo.append((self._offload, (kv_layer,)))
        self._todo.append((self._pack_blocks, (kv_layer, attn_metadata.block_table)))

    def wait_for_save(self):
        done = [fn(*args) for fn, args in self._todo]
        self._todo = []
        return done
""",
    "jobs_fn_kwargs_comprehension_lmdeploy": """\
import torch


class SpillingAttentionImpl:
    def __init__(self, num_heads, spill_dtype=torch.float16):
        self.num_heads = num_heads
        self.spill_dtype = spill_dtype
        self._jobs = []

    def _spill_whole(self, cache, out_dtype):
        return cache.to(out_dtype)  # positive: CL001 the whole key cache, run from a (fn, kwargs) job list

    def _spill_blocks(self, cache, out_dtype, blocks):
        return cache[blocks].to(out_dtype)  # negative: the step's blocks gathered first

    def _spill_scales(self, scales, out_dtype):
        return scales.to(out_dtype)  # negative: the per-block scales

    def forward(self, query, key, value, k_cache, v_cache, attn_metadata, k_scales_zeros=None, v_scales_zeros=None):
        self._jobs.append((self._spill_whole, {"cache": k_cache, "out_dtype": self.spill_dtype}))
        self._jobs.append((self._spill_blocks, {"cache": v_cache, "out_dtype": self.spill_dtype, "blocks": attn_metadata.block_offsets}))
        self._jobs.append((self._spill_scales, {"scales": attn_metadata.k_scales, "out_dtype": self.spill_dtype}))
        outs = [fn(**kw) for fn, kw in self._jobs]
        self._jobs.clear()
        return outs
""",
    "partials_queued_sglang": """\
import functools

import torch


class LayerOffloader:
    def __init__(self, model_runner):
        self.pool = model_runner.token_to_kv_pool
        self.host_dtype = torch.bfloat16
        self._pending = []

    def _to_host(self, layer_id, buf):
        return layer_id, buf.to(self.host_dtype)  # positive: CL001 the layer's whole key buffer, queued as a partial

    def _rows_to_host(self, layer_id, buf, loc):
        return layer_id, buf[loc].to(self.host_dtype)  # negative: this step's rows

    def forward_extend(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        key_buf = self.pool.get_key_buffer(layer.layer_id)
        self._pending.append(functools.partial(self._to_host, layer.layer_id, key_buf))
        self._pending.append(functools.partial(self._rows_to_host, layer.layer_id, loc=forward_batch.out_cache_loc, buf=key_buf))
        for job in self._pending:
            job()
        self._pending.clear()
        return q.to("cuda", non_blocking=True)  # negative: a device move of the query
""",
    "queue_fn_star_rest_trtllm": """\
import torch


class KVSpillQueue:
    def __init__(self, layer_idx, dtype=torch.float16):
        self.layer_idx = layer_idx
        self.dtype = dtype
        self.queue = []

    def _dense(self, layer_idx, buf):
        return buf.to(self.dtype)  # positive: CL001 a whole layer's buffer, queued as (fn, *args)

    def _same(self, layer_idx, buf):
        return buf.to(buf.dtype)  # negative: its own dtype

    def forward(self, q, k, v, metadata):
        buf = metadata.kv_cache_manager.get_buffers(self.layer_idx)
        self.queue.append((self._dense, self.layer_idx, buf))
        self.queue.append((self._same, self.layer_idx, buf))
        results = []
        for fn, *args in self.queue:
            results.append(fn(*args))
        self.queue.clear()
        return results
""",
    # -- getters as values --------------------------------------------------------------------------
    "plan_attrgetter_pair_local_vllm": """\
import operator

import torch
from flashinfer import BatchMLAPagedAttentionWrapper


class FlashInferMLAMetadataBuilder:
    def __init__(self, vllm_config, kv_cache_spec, workspace):
        self.model_config = vllm_config.model_config
        self.kv_cache_dtype = kv_cache_spec.dtype
        self.num_heads = vllm_config.model_config.get_num_attention_heads()
        self.wrapper = BatchMLAPagedAttentionWrapper(workspace, backend="auto")
        self.prefill = BatchMLAPagedAttentionWrapper(workspace, backend="auto")

    def build(self, common_prefix_len, common_attn_metadata):
        m = common_attn_metadata
        dts = operator.attrgetter("dtype", "dtype")(self.model_config)
        self.wrapper.plan(m.qo_indptr, m.kv_indptr, m.kv_indices, m.seq_lens, self.num_heads, 512, 64, 1, False, 0.1, *dts)  # positive: CL002 q and kv both the model dtype
        pool = (self.model_config.dtype, self.kv_cache_dtype)
        self.prefill.plan(m.qo_indptr, m.kv_indptr, m.kv_indices, m.seq_lens, self.num_heads, 512, 64, 1, True, 0.1, *pool)  # negative: kv at the cache dtype
        lens = m.seq_lens.to(torch.int32)  # negative: lengths
        return lens
""",
    "plan_itemgetter_class_attribute_trtllm": """\
import operator

from flashinfer import BatchMLAPagedAttentionWrapper


class MLAPlanner:
    _planned = operator.itemgetter("act", "act")
    _native = operator.itemgetter("act", "cache")

    def __init__(self, model_config, kv_cache_manager, workspace):
        self.dtypes = {"act": model_config.torch_dtype, "cache": kv_cache_manager.dtype}
        self.kv_cache_manager = kv_cache_manager
        self.decode = BatchMLAPagedAttentionWrapper(workspace)
        self.native = BatchMLAPagedAttentionWrapper(workspace)

    def prepare(self, metadata):
        pair = self._planned(self.dtypes)
        self.decode.plan(metadata.qo_indptr, metadata.kv_indptr, metadata.kv_indices, metadata.kv_lens, 16, 512, 64, 32, False, 0.1, *pair)  # positive: CL002 kv planned as the activation dtype
        self.native.plan(metadata.qo_indptr, metadata.kv_indptr, metadata.kv_indices, metadata.kv_lens, 16, 512, 64, 32, False, 0.1, *self._native(self.dtypes))  # negative: kv at the cache dtype
""",
    "cast_attrgetter_device_dtype_lmdeploy": """\
import operator

import torch

_PLACEMENT = operator.attrgetter("device", "dtype")


class DenseFallbackImpl:
    def __init__(self, num_heads, head_size):
        self.num_heads = num_heads
        self.head_size = head_size

    def forward(self, query, key, value, k_cache, v_cache, attn_metadata, k_scales_zeros=None, v_scales_zeros=None):
        self.placement = _PLACEMENT(query)
        dense_k = k_cache.to(*self.placement)  # positive: CL001 the whole key cache to the query's device and dtype
        rows_v = v_cache[attn_metadata.block_offsets].to(*self.placement)  # negative: the step's blocks
        scales = k_scales_zeros.to(*self.placement) if k_scales_zeros is not None else None  # negative: scales
        moved = k_cache.to(*operator.attrgetter("device")(query))  # negative: a device move
        return dense_k, rows_v, scales, moved
""",
    # -- callables chosen from displays ----------------------------------------------------------
    "reader_bool_dict_self_attr_sglang": """\
import torch


class HybridReadBackend:
    def __init__(self, model_runner):
        self.pool = model_runner.token_to_kv_pool
        self.compute_dtype = model_runner.dtype
        self.dense_fallback = model_runner.server_args.dense_fallback

    def _rows(self, buf, loc):
        return buf[loc].to(self.compute_dtype)  # negative: the step's rows

    def _dense(self, buf, loc):
        return buf.to(self.compute_dtype)  # positive: CL001 the layer's whole key buffer, reader picked by a flag

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        self._read = {True: self._dense, False: self._rows}[self.dense_fallback]
        keys = self._read(self.pool.get_key_buffer(layer.layer_id), forward_batch.out_cache_loc)
        loc = forward_batch.out_cache_loc.to(torch.int64)  # negative: indices
        return keys, loc
""",
    "reader_list_index_called_vllm": """\
import torch


class TritonFallbackImpl:
    def __init__(self, num_heads, head_size, scale, use_dense):
        self.num_heads = num_heads
        self.scale = scale
        self.use_dense = use_dense
        self.compute_dtype = torch.float16

    def _gathered(self, kv_cache, attn_metadata):
        return kv_cache[:, attn_metadata.block_table].to(self.compute_dtype)  # negative: the batch's blocks

    def _whole(self, kv_cache, attn_metadata):
        return kv_cache.to(self.compute_dtype)  # positive: CL001 the layer's whole cache, reader indexed by a flag

    def forward(self, layer, query, key, value, kv_cache, attn_metadata, output=None):
        kv = [self._gathered, self._whole][int(self.use_dense)](kv_cache, attn_metadata)
        moved = query.to(kv_cache.device)  # negative: the query, a device move
        return kv, moved
""",
    "reader_conditional_called_trtllm": """\
import torch


class SM80FallbackAttention:
    def __init__(self, layer_idx, sm_version, dtype=torch.bfloat16):
        self.layer_idx = layer_idx
        self.sm_version = sm_version
        self.dtype = dtype

    def _dense(self, buf, metadata):
        return buf.to(self.dtype)  # positive: CL001 every block of the layer, callee chosen by a conditional expression

    def _paged(self, buf, metadata):
        return buf[metadata.block_ids].to(self.dtype)  # negative: the step's blocks

    def forward(self, q, k, v, metadata):
        buf = metadata.kv_cache_manager.get_buffers(self.layer_idx)
        out = (self._dense if self.sm_version < 90 else self._paged)(buf, metadata)
        same = buf.to(buf.dtype)  # negative: its own dtype
        return out, same
""",
    "reader_dict_get_default_lmdeploy": """\
import torch


class MixedCacheImpl:
    def __init__(self, num_heads, kv_mode):
        self.num_heads = num_heads
        self.kv_mode = kv_mode

    def _widen(self, k_cache, attn_metadata, dtype):
        return k_cache.to(dtype)  # positive: CL001 the whole key cache, reader taken from a dict display

    def _paged(self, k_cache, attn_metadata, dtype):
        return k_cache[attn_metadata.block_offsets].to(dtype)  # negative: block gather

    def forward(self, query, key, value, k_cache, v_cache, attn_metadata, k_scales_zeros=None, v_scales_zeros=None):
        read = {"int8": self._widen}.get(self.kv_mode, self._paged)
        kv = read(k_cache, attn_metadata, query.dtype)
        scales = k_scales_zeros.float() if k_scales_zeros is not None else None  # negative: scales
        return kv, scales
""",
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_marked_lines(tmp_path, name):
    assert_marked_lines(tmp_path, name, CASES[name])


@pytest.mark.parametrize("name", sorted(CASES))
def test_marked_lines_pruned(tmp_path, name):
    """As castlint runs by default (pruned): the chosen readers were found whole but dropped here."""
    path = tmp_path / f"{name}.py"
    path.write_text(CASES[name])
    positives, _ = marks(CASES[name])
    assert {(code, line) for code, line, _ in check(path, True)} == positives


@pytest.mark.parametrize("name", sorted(CASES))
@pytest.mark.parametrize("filler", [False, True], ids=["as-is", "with-filler"])
def test_pruned_is_whole(tmp_path, name, filler):
    assert_pruned_is_whole(tmp_path, name, CASES[name], filler)
