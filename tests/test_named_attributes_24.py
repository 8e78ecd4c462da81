# ruff: noqa: E501
"""Round 24 (family_recall_22, f4): attribute names that are constants only through a binding. A getattr /
methodcaller whose method name is a parameter with a constant default (or every visible caller's constant)
converts as the named method would; setattr with names from a loop over a literal tuple, from a literal
mapping's items, and `self.__dict__.update({...})` / `vars(self).update(...)` set plain attributes that plan
reads see. Look-alikes: device moves, same-dtype casts, a plan whose kv dtype is the cache's. Pruned == whole,
with and without filler."""

from __future__ import annotations

import pytest

from marked_cases import assert_marked_lines, assert_pruned_is_whole

CASES = {
    "getattr_param_default_vllm": """\
import torch


def _densify(cache, dtype, how="to"):
    return getattr(cache, how)(dtype)  # positive: CL001


def _move(cache, device, how="to"):
    return getattr(cache, how)(device)  # negative: device move


class FlashAttentionImpl:
    def __init__(self, dtype=torch.float32):
        self.dtype = dtype

    def forward(self, layer, query, kv_cache, attn_metadata):
        dense = _densify(kv_cache, self.dtype)
        moved = _move(kv_cache, query.device)
        same = getattr(kv_cache, "to")(kv_cache.dtype)  # negative: same dtype
        return dense, moved, same
""",
    "setattr_loop_tuple_lmdeploy": """\
import torch


class FlashInferPlanner:
    def __init__(self, model_config, cache_config):
        for field in ("q_dtype", "kv_dtype"):
            setattr(self, field, model_config.dtype)
        self.cache_dtype = cache_config.kv_cache_dtype

    def plan_decode(self, wrapper, indptr, indices, lens, sm_scale):
        qo = torch.arange(0, lens.numel() + 1, dtype=torch.int32)  # negative: index tensor
        wrapper.plan(qo, indptr, indices, lens, 32, 512, 64, 64, False, sm_scale, self.q_dtype, self.kv_dtype)  # positive: CL002

    def plan_native(self, wrapper, indptr, indices, lens, sm_scale):
        qo = torch.arange(0, lens.numel() + 1, dtype=torch.int32)
        wrapper.plan(qo, indptr, indices, lens, 32, 512, 64, 64, False, sm_scale, self.q_dtype, self.cache_dtype)  # negative: cache dtype
""",
    "setattr_items_dict_trtllm": """\
import torch


class FlashInferMLAMetadata:
    def __init__(self, model_dtype, kv_cache_dtype):
        for key, value in {"q_dt": model_dtype, "kv_dt": model_dtype, "cache_dt": kv_cache_dtype}.items():
            setattr(self, key, value)

    def prepare(self, wrapper, qo, indptr, indices, lens, scale):
        wrapper.plan(qo, indptr, indices, lens, 16, 512, 64, 32, False, scale, self.q_dt, self.kv_dt)  # positive: CL002

    def prepare_native(self, wrapper, qo, indptr, indices, lens, scale):
        wrapper.plan(qo, indptr, indices, lens, 16, 512, 64, 32, False, scale, self.q_dt, self.cache_dt)  # negative: cache dtype
""",
    "namespace_update_sglang": """\
import torch


class FlashInferMLADecodeUpdater:
    def __init__(self, model_runner):
        self.__dict__.update({"q_data_type": model_runner.dtype, "kv_data_type": model_runner.dtype})
        vars(self).update(native_kv=model_runner.kv_cache_dtype)

    def call_begin_forward(self, wrapper, kv_indptr, kv_indices, kv_lens, sm_scale):
        qo = torch.arange(0, kv_lens.numel() + 1, dtype=torch.int32)  # negative: index tensor
        wrapper.plan(qo, kv_indptr, kv_indices, kv_lens, 16, 512, 64, 1, False, sm_scale, self.q_data_type, self.kv_data_type)  # positive: CL002

    def call_native(self, wrapper, kv_indptr, kv_indices, kv_lens, sm_scale):
        qo = torch.arange(0, kv_lens.numel() + 1, dtype=torch.int32)
        wrapper.plan(qo, kv_indptr, kv_indices, kv_lens, 16, 512, 64, 1, False, sm_scale, self.q_data_type, self.native_kv)  # negative: cache dtype
""",
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_marked_lines(tmp_path, name):
    assert_marked_lines(tmp_path, name, CASES[name])


@pytest.mark.parametrize("name", sorted(CASES))
@pytest.mark.parametrize("filler", [False, True], ids=["as-is", "with-filler"])
def test_pruned_is_whole(tmp_path, name, filler):
    assert_pruned_is_whole(tmp_path, name, CASES[name], filler)
