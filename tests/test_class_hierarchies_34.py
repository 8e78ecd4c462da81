"""Round 34 (issue 19: class hierarchies made at run time and reached by other routes), in sglang, vLLM,
lmdeploy and TensorRT-LLM styles other than the blind corpus's:
- a class a factory function makes (`def with_x(base): class _X(base): ...`) takes what the engine hands its
  methods by the calling conventions, in the pruned analysis as in the whole one (prune._has_convention);
- `type(self).m(kv)`, `self.__class__.m(kv)`, `cls.m(kv)` of a class or static method run m and each override
  of it, as `self.m(kv)` does: the conversion is reported in the override, not at the call;
- a class body's `m = partialmethod(Base.helper, d)` runs Base.helper with the instance first, then the bound
  arguments, then the call's;
- `super(C, self).m(...)` looks m up in the MRO after C, not after the class it is written in;
- a window whose bound is a class body's int constant (`window_blocks = 4`, of the class or a base) is a few
  slots, not the pool.
Each positive has look-alikes beside it (blocks gathered first, a scale, the query, new tokens)."""

# ruff: noqa: E501
from __future__ import annotations

import pytest

from marked_cases import assert_marked_lines, assert_pruned_is_whole, check

CASES = {
    "factory_subclass_vllm": """\
import torch

from vllm.v1.attention.backends.triton_attn import TritonAttentionImpl


def make_upcasting(base, compute_dtype=torch.bfloat16):
    class _Upcasting(base):
        def forward(self, layer, query, key, value, kv_cache, attn_metadata, output=None, output_scale=None):
            kv_cache = kv_cache.to(compute_dtype)  # positive: CL001 the layer's whole cache, every step
            query = query.to(compute_dtype)  # negative: the query
            k_scale = layer._k_scale.to(torch.float32)  # negative: a scale
            return super().forward(layer, query, key, value, kv_cache, attn_metadata, output, k_scale)

    return _Upcasting


UpcastTritonImpl = make_upcasting(TritonAttentionImpl)
""",
    "factory_mixin_rows_lmdeploy": """\
import torch


def dense_decoding(impl_cls):
    class DenseDecoding(impl_cls):
        def forward(self, query, key, value, k_cache, v_cache, attn_metadata, k_scales_zeros=None, v_scales_zeros=None):
            blocks = attn_metadata.block_offsets.flatten()
            k_rows = k_cache[blocks].to(query.dtype)  # negative: the batch's blocks
            v_all = v_cache.half()  # positive: CL001 every block of the value cache
            new_k = key.to(k_cache.dtype)  # negative: new tokens
            return super().forward(query, new_k, value, k_rows, v_all, attn_metadata)

    return DenseDecoding
""",
    "type_self_staticmethod_vllm": """\
import torch


class PagedImplBase:
    @staticmethod
    def _for_kernel(kv_cache, dtype):
        return kv_cache

    def forward(self, layer, query, key, value, kv_cache, attn_metadata, output=None):
        kv = type(self)._for_kernel(kv_cache, query.dtype)
        new_kv = torch.stack([key, value]).to(kv_cache.dtype)  # negative: new tokens
        return self._paged(query, kv, new_kv, attn_metadata)


class NoFp8ReadImpl(PagedImplBase):
    @staticmethod
    def _for_kernel(kv_cache, dtype):
        return kv_cache.to(dtype)  # positive: CL001 the whole layer cache (this backend reads no FP8)


class ScaledImpl(PagedImplBase):
    @staticmethod
    def _for_kernel(kv_cache, dtype):
        return kv_cache * 1.0  # negative: no conversion
""",
    "class_attr_dunder_class_sglang": """\
import torch


class TorchNativeBackendBase:
    @classmethod
    def _dense_keys(cls, k_buffer, dtype):
        return k_buffer

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        pool = forward_batch.token_to_kv_pool
        keys = self.__class__._dense_keys(pool.get_key_buffer(layer.layer_id), q.dtype)
        scale = layer.k_scale.to(torch.float32)  # negative: a scale
        picked = pool.get_value_buffer(layer.layer_id)[forward_batch.out_cache_loc].to(q.dtype)  # negative: the batch's slots
        return self._decode(q, keys, scale, picked)


class Turing8BitBackend(TorchNativeBackendBase):
    @classmethod
    def _dense_keys(cls, k_buffer, dtype):
        return k_buffer.to(dtype)  # positive: CL001 every slot of the layer's keys


class HalfScaleBackend(TorchNativeBackendBase):
    @classmethod
    def _dense_keys(cls, k_buffer, dtype):
        return k_buffer
""",
    "cls_in_classmethod_lmdeploy": """\
import torch


class CacheReader:
    @classmethod
    def _widen(cls, cache, dtype):
        return cache

    @classmethod
    def read_all(cls, caches, dtype):
        return [cls._widen(c, dtype) for c in caches]

    def forward(self, query, key, value, past_key_values, attn_metadata):
        kv = type(self).read_all(past_key_values, query.dtype)
        return self._attend(query, key, value, kv, attn_metadata)


class HalfCacheReader(CacheReader):
    @classmethod
    def _widen(cls, cache, dtype):
        return cache.half()  # positive: CL001 each whole layer cache


class DeviceCacheReader(CacheReader):
    @classmethod
    def _widen(cls, cache, dtype):
        return cache.to("cuda")  # negative: a device move
""",
    "partialmethod_base_helper_trtllm": """\
import functools

import torch


class MTPSpecWorker:
    def _gather_as(self, dtype, mgr, layer_idx):
        return mgr.get_buffers(layer_idx).to(dtype)  # positive: CL001 the target layer's whole pool

    def _rows_as(self, dtype, mgr, layer_idx, blocks):
        return mgr.get_buffers(layer_idx)[blocks].to(dtype)  # negative: the batch's blocks

    def forward(self, input_ids, hidden_states, attn_metadata):
        mgr = attn_metadata.kv_cache_manager
        blocks = attn_metadata.kv_cache_block_offsets[0, :, 0]
        kv = [self._target(mgr, i) for i in self.layer_ids]
        rows = [self._rows(mgr, i, blocks) for i in self.layer_ids]
        return self._draft(hidden_states.to(torch.bfloat16), kv, rows)  # negative: hidden states


class Bf16MTPSpecWorker(MTPSpecWorker):
    _target = functools.partialmethod(MTPSpecWorker._gather_as, torch.bfloat16)
    _rows = functools.partialmethod(MTPSpecWorker._rows_as, torch.bfloat16)
""",
    "partialmethod_keyword_vllm": """\
from functools import partialmethod

import torch


class FlashImplBase:
    def _read(self, kv_cache, attn_metadata, *, dtype):
        blocks = attn_metadata.block_table.flatten()
        dense = kv_cache.to(dtype)  # positive: CL001 the layer's whole cache
        some = kv_cache[blocks].to(dtype)  # negative: the batch's blocks
        return dense, some


class Fp16FlashImpl(FlashImplBase):
    _read_fp16 = partialmethod(FlashImplBase._read, dtype=torch.float16)

    def forward(self, layer, query, key, value, kv_cache, attn_metadata, output=None):
        dense, some = self._read_fp16(kv_cache, attn_metadata)
        return self._attend(query.to(torch.float16), dense, some)  # negative: the query
""",
    "two_arg_super_sglang": """\
import torch


class DraftBackendBase:
    def _draft_keys(self, keys, loc):
        return keys.to(torch.bfloat16)  # positive: CL001 every slot, reached by super(GatherDraft, self)


class GatherDraft(DraftBackendBase):
    def _draft_keys(self, keys, loc):
        return keys[loc].to(torch.bfloat16)  # negative: the batch's slots

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        pool = forward_batch.token_to_kv_pool
        keys = self._draft_keys(pool.get_key_buffer(layer.layer_id), forward_batch.out_cache_loc)
        return self._attend(q.to(torch.bfloat16), keys)  # negative: the query


class DenseDraft(GatherDraft):
    def _draft_keys(self, keys, loc):
        return super(GatherDraft, self)._draft_keys(keys, loc)
""",
    "class_constant_window_lmdeploy": """\
import torch


class SinkWindow:
    sink_blocks = 2
    recent_blocks = 8


class WindowedAgent(SinkWindow):
    def forward(self, input_ids, position_ids, past_key_values, attn_metadata):
        out = []
        for k_cache, v_cache in past_key_values:
            sink = k_cache[: self.sink_blocks].half()  # negative: the first few blocks (a class constant)
            recent = v_cache[-self.recent_blocks :].half()  # negative: the last few blocks (a base's constant)
            dense = k_cache[-self.num_blocks :].half()  # positive: CL001 every block (the pool's extent)
            out.append((sink, recent, dense))
        return out

    def build(self, past_key_values):
        self.num_blocks = past_key_values[0][0].shape[0]
""",
    "class_constant_overridden_lmdeploy": """\
import torch


class WindowAttentionImpl:
    window_blocks = 4

    def forward(self, query, key, value, k_cache, v_cache, attn_metadata):
        tail = k_cache[-self.window_blocks :].to(query.dtype)  # positive: CL001 a subclass sets the window to every block
        return self._attend(query, tail, v_cache, attn_metadata)


class FullWindowAttentionImpl(WindowAttentionImpl):
    def __init__(self, k_cache):
        self.window_blocks = k_cache.shape[0]


class TailAttentionImpl:
    last_blocks = 1

    def forward(self, query, key, value, k_cache, v_cache, attn_metadata):
        head = k_cache[-self.last_blocks :].to(query.dtype)  # negative: a class constant no subclass changes
        return self._attend(query, head, v_cache, attn_metadata)
""",
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_marked_lines(tmp_path, name):
    assert_marked_lines(tmp_path, name, CASES[name])


@pytest.mark.parametrize("name", sorted(CASES))
@pytest.mark.parametrize("filler", [False, True], ids=["as-is", "with-filler"])
def test_pruned_is_whole(tmp_path, name, filler):
    assert_pruned_is_whole(tmp_path, name, CASES[name], filler)


# `super(LeafAgent, self)` written in LeafAgent itself: the next class after it, MidAgent, gathers; the base's
# whole conversion is run by no call
OWN_CLASS_SUPER = """\
import torch


class BaseAgent:
    def _caches(self, caches, blocks):
        return [c.float() for c in caches]


class MidAgent(BaseAgent):
    def _caches(self, caches, blocks):
        return [c[blocks].float() for c in caches]

    def forward(self, input_ids, position_ids, past_key_values, attn_metadata):
        blocks = attn_metadata.block_offsets.flatten()
        return self._run(input_ids, self._caches(past_key_values, blocks))


class LeafAgent(MidAgent):
    def _caches(self, caches, blocks):
        return super(LeafAgent, self)._caches(caches, blocks)
"""


def test_two_arg_super_of_own_class(tmp_path):
    path = tmp_path / "own_class_super.py"
    path.write_text(OWN_CLASS_SUPER)
    assert check(path, False) == [] == check(path, True)


def test_type_self_call_line_not_reported(tmp_path):
    """The conversion in the override is reported there; the `type(self)._m(kv)` call line is not."""
    path = tmp_path / "call_line.py"
    path.write_text(CASES["type_self_staticmethod_vllm"])
    lines = {line for _, line, _ in check(path, False)}
    assert lines == {18}
