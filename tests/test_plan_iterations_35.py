"""Round 35: a FlashInfer plan's dtype pair built by an iteration the module shows.

The q/kv dtypes of a plan call may come from a dict comprehension (`{f"{role}_data_type": dt for role in
("q", "kv")}`, keys folded per iteration), a generator or list comprehension spread with `*`, `map(lambda ...)`
over a display, or `dict(...)` of such pairs: each iteration's element is read with the target bound to that
element of the iterable (wrappers._unrolled), so the pair is the model dtype twice or the model dtype and the
pool's. Negatives beside them keep the pool's own kv dtype.
"""

# ruff: noqa: E501
from __future__ import annotations

import pytest

from marked_cases import assert_marked_lines, assert_pruned_is_whole

CASES = {
    "sglang_dict_comprehension_concat_keys": """\
import torch


class FlashInferMLAReplayPlanner:
    def __init__(self, model_runner):
        self.act_dtype = model_runner.dtype
        self.cache_dtype = model_runner.kv_cache_dtype

    def plan_decode(self, wrapper, indptr, indices, kv_lens):
        wrapper.plan(indptr, indptr, indices, kv_lens, 16, 512, 64, 1, False, 0.1, **{k + "_data_type": self.act_dtype for k in ["q", "kv"]})  # positive: CL002 both the model dtype
        wrapper.plan(indptr, indptr, indices, kv_lens, 16, 512, 64, 1, True, 0.1, **{k + "_data_type": d for k, d in [("q", self.act_dtype), ("kv", self.cache_dtype)]})  # negative: the pool's kv dtype
""",
    "vllm_list_comprehension_star": """\
import torch


class FlashInferMLAPlanBuilder:
    def __init__(self, kv_cache_spec, vllm_config, device):
        self.act_dtype = vllm_config.model_config.dtype
        self.cache_dtype = kv_cache_spec.dtype

    def _plan(self, wrapper, qo_indptr, kv_indptr, kv_indices, kv_lens, sm_scale):
        wrapper.plan(qo_indptr, kv_indptr, kv_indices, kv_lens, 16, 512, 64, 1, False, sm_scale, *[self.act_dtype for _ in range(2)])  # positive: CL002 both the model dtype
        wrapper.plan(qo_indptr, kv_indptr, kv_indices, kv_lens, 16, 512, 64, 1, True, sm_scale, *[d for d in (self.act_dtype, self.cache_dtype)])  # negative: the cache's kv dtype
""",
    "trtllm_dict_generator_pairs": """\
import torch

_ROLES = ("q_data_type", "kv_data_type")


class FlashInferDraftPlanner:
    def __init__(self, model_config, kv_cache_manager):
        self.act_dtype = model_config.torch_dtype
        self.cache_dtype = kv_cache_manager.dtype

    def prepare(self, wrapper, target, plan_args):
        wrapper.plan(*plan_args, **dict((role, self.act_dtype) for role in _ROLES))  # positive: CL002 both the model dtype
        target.plan(*plan_args, **dict(zip(_ROLES, (self.act_dtype, self.cache_dtype))))  # negative: the cache's kv dtype
        self.lens = plan_args[3].to(torch.int32)  # negative: lengths
""",
    "lmdeploy_map_lambda_two_iterables": """\
import torch

_NAMES = ["q_data_type", "kv_data_type"]


class FlashInferPagedPlanner:
    def __init__(self, compute_dtype, kv_dtype):
        self.compute_dtype = compute_dtype
        self.kv_cache_dtype = kv_dtype

    def plan_same(self, wrapper, args):
        kw = dict(map(lambda name, dt: (name, dt), _NAMES, (self.compute_dtype, self.compute_dtype)))
        wrapper.plan(*args, **kw)  # positive: CL002 both the compute dtype

    def plan_native(self, wrapper, args):
        kw = dict(map(lambda name, dt: (name, dt), _NAMES, (self.compute_dtype, self.kv_cache_dtype)))
        wrapper.plan(*args, **kw)  # negative: the cache's own kv dtype

    def plan_star(self, wrapper, args):
        wrapper.plan(*args, **dict(zip(_NAMES, [self.compute_dtype for _ in _NAMES])))  # positive: CL002 both the compute dtype
""",
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_marked_lines(tmp_path, name):
    assert_marked_lines(tmp_path, name, CASES[name])


@pytest.mark.parametrize("name", sorted(CASES))
@pytest.mark.parametrize("filler", [False, True], ids=["as-is", "with-filler"])
def test_pruned_is_whole(tmp_path, name, filler):
    assert_pruned_is_whole(tmp_path, name, CASES[name], filler)
