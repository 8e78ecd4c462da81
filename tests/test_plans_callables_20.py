"""Issue 19, round 20 (family_recall_18: f4 plans and higher-order calls), in spellings other than the
corpus's:
- FlashInfer plan dtypes that travel through a `**mapping`: a dict whose kv item is stored as an alias of
  its own q item (`kw["kv_data_type"] = kw["q_data_type"]`), a dict built by `dict.fromkeys(keys, dt)` /
  `OrderedDict.fromkeys` (rules/accessors.toml [containers] key_fill_dicts), an OrderedDict copy
  (item_dicts);
- a (q, kv) dtype pair chosen between alternatives (`q, kv = native() if c else same()`, a helper with
  several `return q, kv`): read pair by pair, CL002 when one alternative plans kv with q's dtype.
Each positive has look-alikes beside it; the pruned analysis gives the whole file's findings, with and
without filler."""

from __future__ import annotations

import pytest

from marked_cases import assert_marked_lines, assert_pruned_is_whole

_PLAN = "qo, kv_indptr, kv_indices, kv_lens, self.heads, 512, 64, 1, False, self.scale"

CASES = {
    "item_alias_ordered_dict_sglang": f"""\
import collections


class MLADecodeUpdater:
    def __init__(self, model_runner, heads, scale):
        self.model_runner = model_runner
        self.heads, self.scale = heads, scale
        self.kv_cache_dtype = model_runner.kv_cache_dtype

    def update(self, wrapper, qo, kv_indptr, kv_indices, kv_lens):
        kw = collections.OrderedDict()
        kw["q_data_type"] = self.model_runner.dtype
        kw["kv_data_type"] = kw["q_data_type"]
        wrapper.plan({_PLAN}, **kw)  # positive: CL002

    def update_native(self, wrapper, qo, kv_indptr, kv_indices, kv_lens):
        kw = {{}}
        kw["q_data_type"] = self.model_runner.dtype
        kw["kv_data_type"] = self.kv_cache_dtype
        kw["o_data_type"] = kw["q_data_type"]
        wrapper.plan({_PLAN}, **kw)  # negative: kv from the pool's dtype
""",
    "fromkeys_names_vllm": f"""\
import collections

_DTYPE_KEYS = ["q_data_type", "kv_data_type"]


class FlashInferMLABuilder:
    def __init__(self, vllm_config, kv_cache_spec, heads, scale):
        self.heads, self.scale = heads, scale
        dt = vllm_config.model_config.dtype
        self.same = collections.OrderedDict.fromkeys(_DTYPE_KEYS, dt)
        self.split = dict.fromkeys(["q_data_type"], dt) | {{"kv_data_type": kv_cache_spec.dtype}}

    def build(self, wrapper, qo, kv_indptr, kv_indices, kv_lens, draft):
        if draft:
            wrapper.plan({_PLAN}, **self.split)  # negative: kv from the spec
        else:
            wrapper.plan({_PLAN}, **self.same)  # positive: CL002
""",
    "pair_returns_lmdeploy": f"""\
def plan_dtypes(model_dtype, kv_dtype, native):
    if native:
        return model_dtype, kv_dtype
    return model_dtype, model_dtype


def native_dtypes(model_dtype, kv_dtype, fast):
    if fast:
        return model_dtype, kv_dtype
    return model_dtype, kv_dtype


class MLAPlanner:
    def __init__(self, model_dtype, kv_cache_dtype, heads, scale):
        self.model_dtype, self.kv_cache_dtype = model_dtype, kv_cache_dtype
        self.heads, self.scale = heads, scale

    def plan(self, wrapper, qo, kv_indptr, kv_indices, kv_lens, native):
        q_dt, kv_dt = plan_dtypes(self.model_dtype, self.kv_cache_dtype, native)
        wrapper.plan({_PLAN}, q_dt, kv_dt)  # positive: CL002

    def plan_native(self, wrapper, qo, kv_indptr, kv_indices, kv_lens, fast):
        q_dt, kv_dt = native_dtypes(self.model_dtype, self.kv_cache_dtype, fast)
        wrapper.plan({_PLAN}, q_dt, kv_dt)  # negative: both alternatives plan kv with the pool's dtype
""",
    "pair_choice_displays_trtllm": f"""\
class MLAPlanHelper:
    def __init__(self, model_dtype, kv_cache_dtype, heads, scale):
        self.model_dtype, self.kv_cache_dtype = model_dtype, kv_cache_dtype
        self.heads, self.scale = heads, scale

    def plan(self, wrapper, qo, kv_indptr, kv_indices, kv_lens, fp8_native):
        q_dt, kv_dt = (
            (self.model_dtype, self.kv_cache_dtype) if fp8_native else (self.model_dtype, self.model_dtype)
        )
        wrapper.plan({_PLAN}, q_data_type=q_dt, kv_data_type=kv_dt)  # positive: CL002

    def plan_split(self, wrapper, qo, kv_indptr, kv_indices, kv_lens, fp8_native):
        q_dt, kv_dt = (self.model_dtype, self.kv_cache_dtype) if fp8_native else (self.model_dtype, self.kv_cache_dtype)
        wrapper.plan({_PLAN}, q_data_type=q_dt, kv_data_type=kv_dt)  # negative: kv always the pool's dtype
""",
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_marked_lines(tmp_path, name):
    assert_marked_lines(tmp_path, name, CASES[name])


@pytest.mark.parametrize("name", sorted(CASES))
@pytest.mark.parametrize("filler", [False, True], ids=["as-is", "with-filler"])
def test_pruned_is_whole(tmp_path, name, filler):
    assert_pruned_is_whole(tmp_path, name, CASES[name], filler)
