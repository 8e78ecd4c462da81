"""Round 26 (family_recall_24), helper r26b: FlashInfer plan dtypes (CL002) through dict protocols, partials
and wrappers the file never assigns, in sglang, vLLM, lmdeploy and TRT-LLM styles other than the corpus's:
- plan keywords assembled in a dict over several paths (`if` / `else` / `elif` branches storing items,
  `setdefault` filling a key a path left out, `.copy()`, `|`, a helper returning the dict): the kv keyword's
  values are the union over the paths; one that is the q dtype (or left out: FlashInfer's default is the q
  dtype) on a path no test of the KV-cache dtype keeps from an FP8 pool is reported;
- a plan held as `functools.partial` of a bound method of a wrapper the file never assigns
  (`self.decode_wrapper.plan`), keywords split between the partial and its call: the pruner keeps the
  partial's callers;
- the KV-cache dtype in reach through TensorRT-LLM's / lmdeploy's `kv_dtype` attribute and
  `kv_cache_manager.dtype`.
Each positive has look-alikes beside it; the pruned analysis gives the whole file's findings, with and
without filler."""

# ruff: noqa: E501
from __future__ import annotations

import pytest

from marked_cases import assert_marked_lines, assert_pruned_is_whole, check, marks

CASES = {
    # -- plan keywords assembled in dicts over several paths ---------------------------------------
    "dict_else_branch_sglang": """\
import torch


class FlashInferIndicesUpdaterDecode:
    def __init__(self, model_runner, attn_backend):
        self.data_type = model_runner.dtype
        self.kv_cache_dtype = model_runner.kv_cache_dtype
        self.use_tensor_cores = attn_backend.decode_use_tensor_cores

    def _dtype_options(self):
        opts = {"q_data_type": self.data_type}
        if self.use_tensor_cores:
            opts["kv_data_type"] = self.kv_cache_dtype
        else:
            opts["kv_data_type"] = self.data_type
        return opts

    def call_begin_forward(self, wrapper, req_pool_indices, paged_kernel_lens, kv_indptr, kv_indices):
        opts = self._dtype_options()
        kv_last_page_len = torch.ones(16, dtype=torch.int32)  # negative: index tensor
        wrapper.begin_forward(kv_indptr, kv_indices, kv_last_page_len, 32, 8, 128, 1, **opts)  # positive: CL002 kv is q when tensor cores are off
        native = {"q_data_type": self.data_type}
        if self.kv_cache_dtype == torch.float8_e4m3fn:
            native["kv_data_type"] = self.kv_cache_dtype
        wrapper.begin_forward(kv_indptr, kv_indices, kv_last_page_len, 32, 8, 128, 1, **native)  # negative: kv left to q only on a non-FP8 pool
""",
    "dict_copy_setdefault_vllm": """\
import torch


class FlashInferImpl:
    def __init__(self, vllm_config, kv_cache_spec):
        self.q_dtype = vllm_config.model_config.dtype
        self.kv_cache_dtype = kv_cache_spec.dtype
        self.fp8_prefill = vllm_config.attention_config.fp8_prefill and kv_cache_spec.dtype == torch.float8_e4m3fn

    def build(self, common_attn_metadata):
        base = {"q_data_type": self.q_dtype, "causal": True}
        kw = base.copy()
        if self.fp8_prefill:
            kw["kv_data_type"] = self.kv_cache_dtype
        kw.setdefault("kv_data_type", self.q_dtype)
        self.prefill_wrapper.plan(self.qo_indptr, self.kv_indptr, self.kv_indices, self.last_len, 32, 8, 128, 16, **kw)  # positive: CL002 kv defaults to q when fp8 prefill is off
        kv = self.kv_indptr.to(self.device)  # negative: a device move of an index tensor
        pool = {"q_data_type": self.q_dtype} | {"kv_data_type": self.kv_cache_dtype}
        self.decode_wrapper.plan(kv, self.kv_indices, self.last_len, 32, 8, 128, 16, **pool)  # negative: planned at the pool dtype
""",
    "dict_absent_key_lmdeploy": """\
import torch


class FlashInferDecodeRunner:
    def __init__(self, model_config, cache_config):
        self.dtype = model_config.dtype
        self.kv_cache_dtype = cache_config.kv_cache_dtype
        self.native = cache_config.native_fp8 and cache_config.kv_cache_dtype != torch.bfloat16

    def _plan_args(self, quant):
        args = dict(q_data_type=self.dtype)
        if quant and self.native:
            args.update(kv_data_type=self.kv_cache_dtype)
        return args

    def forward(self, wrapper, indptr, indices, last_len, quant):
        scales = self.k_scales.to(torch.float32)  # negative: a scale tensor
        wrapper.plan(indptr, indices, last_len, 32, 8, 128, 64, **self._plan_args(quant))  # positive: CL002 kv dtype left to q on most paths
        both = {**self._plan_args(quant), "kv_data_type": self.kv_cache_dtype}
        wrapper.plan(indptr, indices, last_len, 32, 8, 128, 64, **both)  # negative: kv stored on every path
        return scales
""",
    "dict_elif_trtllm": """\
import torch


class FlashInferAttentionMetadata:
    def __init__(self, model_config, kv_cache_manager):
        self.model_dtype = model_config.torch_dtype
        self.kv_cache_manager = kv_cache_manager
        self.mode = model_config.attn_mode

    def prepare(self):
        params = {"q_data_type": self.model_dtype}
        if self.mode == "xqa":
            params["kv_data_type"] = self.kv_cache_manager.dtype
        elif self.mode == "mixed":
            params["kv_data_type"] = self.model_dtype
        else:
            params["kv_data_type"] = self.kv_cache_manager.dtype
        self.decode_wrapper.plan(self.indptr, self.indices, self.last_len, 32, 8, 128, 32, **params)  # positive: CL002 the mixed mode plans kv as q
        same = {"q_data_type": self.model_dtype, "kv_data_type": self.kv_cache_manager.dtype}
        self.prefill_wrapper.plan(self.qo_indptr, self.indptr, self.indices, self.last_len, 32, 8, 128, 32, **same)  # negative: pool dtype
""",
    # -- plans held as partials of wrappers the file never assigns ----------------------------------
    "partial_split_sglang": """\
from functools import partial

import torch


class FlashInferMultiStepDraftBackend:
    def __init__(self, model_runner):
        self.q_data_type = model_runner.dtype
        self.kv_cache_dtype = model_runner.kv_cache_dtype

    def init_forward_metadata(self, forward_batch):
        self.plan_fn = partial(self.indices_updater.decode_wrapper.begin_forward, q_data_type=self.q_data_type)
        self.native_fn = partial(self.indices_updater.decode_wrapper.begin_forward, kv_data_type=self.kv_cache_dtype)
        self.early = self.kv_cache_dtype  # negative: a dtype, no tensor

    def run_step(self, indptr, indices, last_len):
        lens = last_len.to(torch.int32)  # negative: index tensor
        self.plan_fn(indptr, indices, lens, 32, 8, 128, 1, kv_data_type=self.q_data_type)  # positive: CL002 kv planned as q through the partial
        self.native_fn(indptr, indices, lens, 32, 8, 128, 1, q_data_type=self.q_data_type)  # negative: the pool dtype
""",
    "partial_bound_method_vllm": """\
import functools

import torch


class FlashInferMetadataBuilder:
    def __init__(self, kv_cache_spec, vllm_config, device):
        self.model_dtype = vllm_config.model_config.dtype
        self.kv_cache_dtype = kv_cache_spec.dtype
        self._plan = functools.partial(self._wrappers.decode.plan, kv_data_type=self.model_dtype)
        self._plan_native = functools.partial(self._wrappers.decode.plan, kv_data_type=self.kv_cache_dtype)

    def build(self, common_prefix_len, common_attn_metadata):
        indptr = common_attn_metadata.query_start_loc.to(self.device)  # negative: a device move
        self._plan(indptr, self.kv_indices, self.last_len, 32, 8, 128, 16, q_data_type=self.model_dtype)  # positive: CL002 kv bound to the model dtype
        self._plan_native(indptr, self.kv_indices, self.last_len, 32, 8, 128, 16, q_data_type=self.model_dtype)  # negative: pool dtype
""",
    "partial_lmdeploy": """\
from functools import partial


class FlashInferDecoder:
    def __init__(self, model_config, cache_config):
        self.act_dtype = model_config.dtype
        self.kv_cache_dtype = cache_config.kv_cache_dtype

    def setup(self, workspace):
        self.planner = partial(self.engine.wrapper.plan, q_data_type=self.act_dtype, kv_data_type=self.act_dtype)
        self.good = partial(self.engine.wrapper.plan, q_data_type=self.act_dtype, kv_data_type=self.kv_cache_dtype)

    def step(self, indptr, indices, last_len):
        self.planner(indptr, indices, last_len, 32, 8, 128, 64)  # positive: CL002 both dtypes bound to the activation dtype
        self.good(indptr, indices, last_len, 32, 8, 128, 64)  # negative: pool dtype
""",
    # -- the KV-cache dtype in reach through kv_dtype / kv_cache_manager ----------------------------
    "kv_dtype_attr_trtllm": """\
import torch


class TrtllmFlashInferMetadata:
    def __init__(self, model_dtype, kv_dtype):
        self.model_dtype = model_dtype
        self.kv_dtype = kv_dtype

    def prepare(self, wrapper, indptr, indices, last_len):
        wrapper.plan(indptr, indices, last_len, 32, 8, 128, 64, q_data_type=self.model_dtype, kv_data_type=self.model_dtype)  # positive: CL002 kv planned as the model dtype
        wrapper.plan(indptr, indices, last_len, 32, 8, 128, 64, q_data_type=self.model_dtype, kv_data_type=self.kv_dtype)  # negative: the cache dtype
        return indptr.to(torch.int32)  # negative: index tensor
""",
    "kv_manager_dtype_trtllm": """\
import torch


class FlashInferAttention:
    def forward_prepare(self, metadata):
        q_dt = metadata.model_dtype
        pair = (q_dt, q_dt)
        self.decode_wrapper.plan(*self.geometry, q_data_type=pair[0], kv_data_type=pair[1])  # positive: CL002 kv is the q dtype
        pool_dt = metadata.kv_cache_manager.dtype
        self.prefill_wrapper.plan(*self.geometry, q_data_type=q_dt, kv_data_type=pool_dt)  # negative: cache dtype
""",
    "kv_dtype_lmdeploy": """\
class PagedDecodePlanner:
    def __init__(self, cache_config, model_config):
        self.kv_dtype = cache_config.kv_dtype
        self.dtype = model_config.dtype

    def plan(self, w, indptr, indices, last_len):
        args = [indptr, indices, last_len, 32, 8, 128, 64]
        dt = self.dtype
        w.plan(*args, q_data_type=dt, kv_data_type=dt)  # positive: CL002 kv planned as the activation dtype
        w.plan(*args, q_data_type=dt, kv_data_type=self.kv_dtype)  # negative: the cache dtype
""",
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_marked_lines(tmp_path, name):
    assert_marked_lines(tmp_path, name, CASES[name])


@pytest.mark.parametrize("name", sorted(CASES))
@pytest.mark.parametrize("filler", [False, True], ids=["as-is", "with-filler"])
def test_pruned_is_whole(tmp_path, name, filler):
    assert_pruned_is_whole(tmp_path, name, CASES[name], filler)


@pytest.mark.parametrize("name", sorted(CASES))
def test_marked_lines_pruned(tmp_path, name):
    """As castlint runs by default (pruned): the held-partial shapes were found whole but lost here."""
    path = tmp_path / f"{name}.py"
    path.write_text(CASES[name])
    positives, _ = marks(CASES[name])
    assert {(code, line) for code, line, _ in check(path, True)} == positives
