"""Round 23 (family_recall_21, f4 CL002), in sglang, vLLM, lmdeploy and TRT-LLM styles other than the
corpus's: a plan helper whose q or kv dtype parameter defaults to None and is rebound to a fallback when a
caller leaves it out (`kv = kv or q`, `kv = q if kv is None else kv`, `kv = kv if kv is not None else q`,
`if kv is None: kv = q`, `if not kv: kv = self.dtype`). Each visible caller's plan dtypes are what it passes,
else the fallback evaluated in the helper (a fallback naming the other dtype is what that one became for this
caller). A plan whose kv then equals q for some caller is reported (at the plan when a left-out dtype fell
back, at the caller otherwise). Look-alikes: a fallback to the pool's dtype, helpers whose every caller passes
the KV-cache dtype, a same-named local rebound to something else. Pruned analysis == whole, with and without
filler."""

from __future__ import annotations

import pytest

from marked_cases import assert_marked_lines, assert_pruned_is_whole

CASES = {
    "if_none_statement_sglang": """\
import torch


class FlashInferMLAPrefillUpdater:
    def __init__(self, model_runner, wrapper, ragged):
        self.q_dt = model_runner.dtype
        self.kv_dt = model_runner.kv_cache_dtype
        self.wrapper = wrapper
        self.ragged = ragged

    def _plan(self, qo, ip, ix, ln, sm_scale, kv_dt=None):
        if kv_dt is None:
            kv_dt = self.q_dt
        self.wrapper.plan(qo, ip, ix, ln, 16, 512, 64, 1, True, sm_scale, self.q_dt, kv_dt)  # positive: CL002

    def _plan_native(self, qo, ip, ix, ln, sm_scale, kv_dt=None):
        if kv_dt is None:
            kv_dt = self.kv_dt
        self.wrapper.plan(qo, ip, ix, ln, 16, 512, 64, 1, True, sm_scale, self.q_dt, kv_dt)  # negative: pool dtype

    def update(self, forward_batch, qo, ip, ix, ln, sm_scale):
        if forward_batch.forward_mode.is_target_verify():
            self._plan(qo, ip, ix, ln, sm_scale, kv_dt=self.kv_dt)  # negative: pool dtype
        else:
            self._plan(qo, ip, ix, ln, sm_scale)
        self._plan_native(qo, ip, ix, ln, sm_scale)
""",
    "ifexp_is_none_vllm": """\
import torch


def plan_mla_decode(wrapper, indptr, indices, lens, num_heads, sm_scale, q_dtype, kv_dtype=None):
    kv_dtype = q_dtype if kv_dtype is None else kv_dtype
    wrapper.plan(  # positive: CL002
        torch.arange(len(lens) + 1, dtype=torch.int32, device=indptr.device),
        indptr,
        indices,
        lens,
        num_heads,
        512,
        64,
        16,
        False,
        sm_scale,
        q_dtype,
        kv_dtype,
    )


def plan_mla_decode_fp8(wrapper, indptr, indices, lens, num_heads, sm_scale, q_dtype, kv_dtype=None):
    kv_dtype = q_dtype if kv_dtype is None else kv_dtype
    wrapper.plan(  # negative: every caller passes the cache dtype
        torch.arange(len(lens) + 1, dtype=torch.int32, device=indptr.device),
        indptr,
        indices,
        lens,
        num_heads,
        512,
        64,
        16,
        False,
        sm_scale,
        q_dtype,
        kv_dtype,
    )


class FlashInferMLABuilder:
    def __init__(self, vllm_config, kv_cache_spec, wrapper):
        self.model_dtype = vllm_config.model_config.dtype
        self.kv_cache_dtype = kv_cache_spec.dtype
        self.wrapper = wrapper

    def build(self, indptr, indices, lens, num_heads, sm_scale):
        plan_mla_decode(self.wrapper, indptr, indices, lens, num_heads, sm_scale, self.model_dtype)
        plan_mla_decode_fp8(self.wrapper, indptr, indices, lens, 8, sm_scale, self.model_dtype, self.kv_cache_dtype)
""",
    "is_not_none_ifexp_both_params_lmdeploy": """\
import torch


class FlashInferMLAPaged:
    def __init__(self, model_config, cache_config, wrapper):
        self.act_dtype = model_config.dtype
        self.kv_cache_dtype = cache_config.kv_cache_dtype
        self.wrapper = wrapper

    def _setup(self, qo, ip, ix, ln, scale, q_dtype=None, kv_dtype=None):
        q_dtype = q_dtype if q_dtype is not None else self.act_dtype
        kv_dtype = kv_dtype if kv_dtype is not None else q_dtype
        self.wrapper.plan(qo, ip, ix, ln, 16, 512, 64, 64, False, scale, q_dtype, kv_dtype)  # positive: CL002

    def _setup_cached(self, qo, ip, ix, ln, scale, kv_dtype=None):
        kv_dtype = self.kv_cache_dtype
        self.wrapper.plan(qo, ip, ix, ln, 16, 512, 64, 64, False, scale, self.act_dtype, kv_dtype)  # negative: pool

    def forward(self, qo, ip, ix, ln, scale, step_ctx):
        self._setup(qo, ip, ix, ln, scale, q_dtype=torch.bfloat16)
        self._setup_cached(qo, ip, ix, ln, scale)
""",
    "or_fallback_at_caller_trtllm": """\
import torch


class FlashInferMLAForward:
    def __init__(self, model_config, kv_cache_manager, wrapper):
        self.dtype = model_config.torch_dtype
        self.kv_cache_dtype = kv_cache_manager.dtype
        self.wrapper = wrapper

    def _prepare(self, m, q_dtype, kv_dtype=None):
        if not kv_dtype:
            kv_dtype = self.kv_cache_dtype
        self.wrapper.plan(m.qo, m.ip, m.ix, m.ln, 16, 512, 64, 32, False, m.scale, q_dtype, kv_dtype)

    def _prepare_or(self, m, q_dtype, kv_dtype=None):
        kv_dtype = kv_dtype or q_dtype
        self.wrapper.plan(m.qo, m.ip, m.ix, m.ln, 16, 512, 64, 32, False, m.scale, q_dtype, kv_dtype)  # positive: CL002

    def forward(self, m):
        self._prepare(m, self.dtype)  # negative: pool dtype
        self._prepare(m, self.dtype, self.dtype)  # positive: CL002
        self._prepare_or(m, self.dtype)
""",
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_marked_lines(tmp_path, name):
    assert_marked_lines(tmp_path, name, CASES[name])


@pytest.mark.parametrize("name", sorted(CASES))
@pytest.mark.parametrize("filler", [False, True], ids=["as-is", "with-filler"])
def test_pruned_is_whole(tmp_path, name, filler):
    assert_pruned_is_whole(tmp_path, name, CASES[name], filler)
