"""Round 32 (issue 19: call indirection), in sglang, vLLM, lmdeploy and TensorRT-LLM styles other than the
blind corpora's:
- a record built by its class's classmethod factory (`return cls(i, methodcaller("get_buffers", i))`, the
  `cls(...)` of the factory constructs the class): a getter or bound accessor it holds, called later with
  the manager, reads the pool; the pruner reads the factory's `cls(...)` as the class's construction;
- plan dtypes from a lambda held in an attribute or a dispatch entry (`self._dtypes = lambda: (dt,) * 2`,
  `(dt,) + (dt,)`, `2 * [dt]`) spread into `plan(...)`: the lambda's body, with tuple arithmetic.
Each positive has look-alikes beside it; the pruned analysis gives the whole file's findings, with and
without filler."""

# ruff: noqa: E501
from __future__ import annotations

import pytest

from marked_cases import assert_marked_lines, assert_pruned_is_whole

CASES = {
    # -- records made by a classmethod factory, holding a getter ---------------------------------------------
    "factory_record_methodcaller_sglang": """\
import operator
from typing import Callable, NamedTuple

import torch


class KeyRead(NamedTuple):
    layer_id: int
    read: Callable

    @classmethod
    def make(cls, layer_id):
        return cls(layer_id, operator.methodcaller("get_key_buffer", layer_id))


class TritonDecodeFallback:
    def __init__(self, layer_id, act_dtype=torch.bfloat16):
        self.key_read = KeyRead.make(layer_id)
        self.act_dtype = act_dtype

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        keys = self.key_read.read(forward_batch.token_to_kv_pool)
        dense = keys.to(self.act_dtype)  # positive: CL001 every slot of the layer's keys
        rows = keys[forward_batch.out_cache_loc].to(self.act_dtype)  # negative: the batch's rows first
        qq = q.to(self.act_dtype)  # negative: the query
        moved = keys.to(q.device)  # negative: a device move
        return dense, rows, qq, moved
""",
    "factory_record_getter_trtllm": """\
from dataclasses import dataclass
from operator import methodcaller
from typing import Any

import torch


@dataclass
class BufferHandle:
    idx: int
    getter: Any

    @classmethod
    def of(cls, idx):
        handle = cls(idx=idx, getter=methodcaller("get_buffers", idx))
        return handle


class GenerationReference:
    def __init__(self, layer_idx, dtype=torch.float16):
        self.handle = BufferHandle.of(layer_idx)
        self.dtype = dtype

    def forward(self, q, k, v, metadata):
        buf = self.handle.getter(metadata.kv_cache_manager)
        ids = metadata.kv_cache_block_offsets[0].flatten()
        picked = buf[ids].to(self.dtype)  # negative: blocks gathered first
        whole = buf.to(self.dtype)  # positive: CL001 every block of the layer
        return picked, whole
""",
    # -- plan dtypes from a lambda held in an attribute ------------------------------------------------------
    "held_lambda_repeat_plan_sglang": """\
import torch


class FlashInferMLADecodeBackend:
    def __init__(self, model_runner):
        self.act_dtype = model_runner.dtype
        self.kv_cache_dtype = model_runner.kv_cache_dtype
        self._forced = lambda: 2 * (self.act_dtype,)
        self._pool_pair = lambda: (self.act_dtype, self.kv_cache_dtype)

    def init_forward_metadata(self, forward_batch):
        w = self.decode_wrappers[0]
        w.plan(self.qo_indptr, self.kv_indptr, self.kv_indices,  # positive: CL002 both dtypes the model's while the pool is FP8
               forward_batch.seq_lens, 16, 512, 64, 1, False, self.sm_scale, *self._forced())
        w.plan(self.qo_indptr, self.kv_indptr, self.kv_indices,  # negative: the pool's own kv dtype
               forward_batch.seq_lens, 16, 512, 64, 1, False, self.sm_scale, *self._pool_pair())
""",
    "held_lambda_concat_plan_vllm": """\
import torch


class FlashInferMLAMetadataBuilder:
    def __init__(self, kv_cache_spec, vllm_config, device):
        self.model_dtype = vllm_config.model_config.dtype
        self.kv_cache_dtype = kv_cache_spec.dtype
        self.dtype_modes = {
            "forced": lambda: (self.model_dtype,) + (self.model_dtype,),
            "native": lambda: (self.model_dtype, self.kv_cache_dtype),
        }

    def build(self, common_prefix_len, common_attn_metadata):
        w = self._get_decode_wrapper()
        if common_prefix_len:
            w.plan(self.qo_indptr, self.paged_kv_indptr, self.paged_kv_indices,  # negative: the pool's dtype
                   self.kv_lens, 16, 512, 64, 1, False, self.scale, *self.dtype_modes["native"]())
        else:
            w.plan(self.qo_indptr, self.paged_kv_indptr, self.paged_kv_indices,  # positive: CL002 the model dtype for the FP8 pool
                   self.kv_lens, 16, 512, 64, 1, False, self.scale, *self.dtype_modes["forced"]())
        return w
""",
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_marked_lines(tmp_path, name):
    assert_marked_lines(tmp_path, name, CASES[name])


@pytest.mark.parametrize("name", sorted(CASES))
@pytest.mark.parametrize("filler", [False, True], ids=["as-is", "with-filler"])
def test_pruned_is_whole(tmp_path, name, filler):
    assert_pruned_is_whole(tmp_path, name, CASES[name], filler)
