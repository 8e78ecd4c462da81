# ruff: noqa: E501
"""Round 27 (family_recall_25), in sglang, vLLM, lmdeploy and TRT-LLM styles other than the corpus's:
- CL002: a kv dtype the code chooses (a conditional expression, a name or self attribute assigned one, a name
  bound in `if` / `elif` / `else` branches) that is the q dtype under a condition that does not keep an FP8 pool
  away (a device capability, a flag), planned directly or by plan partials held in containers a loop or a
  comprehension builds over the wrappers and called in a loop. A test of the KV-cache dtype that holds only for
  another dtype (`cache_dtype == "auto"`, `== torch.bfloat16`) or only for FP8 (`"fp8" in ...`) on the right
  side keeps the pool away (look-alikes beside each positive).
- CL001: a module-level helper whose every call runs once (in `__init__`, a setup hook, or another such
  helper) converts at setup, not per step: neither its cast nor its calls are reported; a helper called from a
  step method beside it is. Across modules, the callers link appends the sibling's calling class whole, so a
  setup-only caller there decides it the same way.
The pruned analysis gives the whole file's findings, with and without filler."""

from __future__ import annotations

import pytest

from marked_cases import assert_marked_lines, assert_pruned_is_whole
from package_cases import fresh_tree_caches, marked_lines, tree_findings, write_tree

CHOICES = {
    "ternary_capability_partials_dict_sglang": """\
import functools

import torch


class TuringFlashInferBackend:
    def __init__(self, model_runner):
        self.q_dtype = model_runner.dtype
        self.kv_cache_dtype = model_runner.kv_cache_dtype
        self.major, self.minor = torch.cuda.get_device_capability()
        self.wrappers = {"decode": model_runner.decode_wrapper, "verify": model_runner.verify_wrapper}

    def init_forward_metadata(self, forward_batch):
        plan_kv = self.q_dtype if self.major < 9 else self.kv_cache_dtype
        planners = {
            name: functools.partial(w.plan, q_data_type=self.q_dtype, kv_data_type=plan_kv)
            for name, w in self.wrappers.items()
        }
        for planner in planners.values():
            planner(  # positive: CL002 kv planned as q on sm < 90 whatever the pool's dtype
                forward_batch.kv_indptr,
                forward_batch.kv_indices,
                forward_batch.kv_last_page_len,
            )
        auto_kv = self.q_dtype if self.kv_cache_dtype == "auto" else self.kv_cache_dtype
        self.wrappers["decode"].plan(forward_batch.kv_indptr, q_data_type=self.q_dtype, kv_data_type=auto_kv)  # negative: q only for an unquantized pool
        mode_kv = self.kv_cache_dtype if forward_batch.forward_mode.is_decode() else self.q_dtype
        self.wrappers["verify"].plan(forward_batch.kv_indptr, q_data_type=self.q_dtype, kv_data_type=mode_kv)  # negative: a per-step mode picks it
        return forward_batch.seq_lens.to(torch.int32)  # negative: lengths
""",
    "branch_bound_flag_loop_append_vllm": """\
import functools

import torch


class LegacyKernelMetadataBuilder:
    def __init__(self, kv_cache_spec, vllm_config, device):
        self.model_dtype = vllm_config.model_config.dtype
        self.cache_dtype = kv_cache_spec.dtype
        self.force_legacy = vllm_config.additional_config.get("legacy_flashinfer", False)
        self.fp8_pool = kv_cache_spec.dtype in (torch.float8_e4m3fn, torch.float8_e5m2)

    def build(self, common_prefix_len, common_attn_metadata, fast_build=False):
        if self.force_legacy:
            kv = self.model_dtype
        elif common_prefix_len > 0:
            kv = self.cache_dtype
        else:
            kv = self.cache_dtype
        calls = []
        for w in (self._prefill_wrapper, self._decode_wrapper):
            calls.append(functools.partial(w.plan, q_data_type=self.model_dtype, kv_data_type=kv))
        for call in calls:
            call(common_attn_metadata.paged_kv_indptr, common_attn_metadata.paged_kv_indices)  # positive: CL002 legacy flag plans kv as q
        guarded = self.cache_dtype if self.fp8_pool else self.model_dtype
        self._decode_wrapper.plan(common_attn_metadata.paged_kv_indptr, q_data_type=self.model_dtype, kv_data_type=guarded)  # negative: q only for a non-FP8 pool
        return common_attn_metadata.seq_lens.to(torch.int32)  # negative: lengths
""",
    "self_attribute_ternary_elif_lmdeploy": """\
import torch


class FlashInferDecodeRunner:
    def __init__(self, cache_config, model_dtype, sm_version):
        self.dtype = model_dtype
        self.kv_cache_dtype = cache_config.dtype
        self.plan_kv_dtype = self.dtype if sm_version < 89 else self.kv_cache_dtype

    def forward(self, step_context):
        for w in (self.prefill_wrapper, self.decode_wrapper):
            w.plan(step_context.kv_indptr, step_context.kv_indices, q_data_type=self.dtype, kv_data_type=self.plan_kv_dtype)  # positive: CL002 the model dtype on pre-Ada devices
        if self.kv_cache_dtype == torch.bfloat16:
            kv = self.dtype
        elif step_context.is_decoding:
            kv = self.kv_cache_dtype
        else:
            kv = self.kv_cache_dtype
        self.decode_wrapper.plan(step_context.kv_indptr, q_data_type=self.dtype, kv_data_type=kv)  # negative: q only for a bf16 pool
        return step_context.q_seqlens.to(torch.int32)  # negative: lengths

    def capture(self, step_context):
        self.decode_wrapper.plan(step_context.kv_indptr, q_data_type=self.dtype, kv_data_type=self.kv_cache_dtype)  # negative: the cache dtype
""",
    "tuple_of_bound_plans_trtllm": """\
import torch


class FlashInferTrtllmAttention:
    def __init__(self, layer_idx, kv_cache_manager, use_paged_legacy):
        self.layer_idx = layer_idx
        self.kv_cache_manager = kv_cache_manager
        self.q_type = torch.bfloat16
        self.use_paged_legacy = use_paged_legacy

    def forward(self, q, k, v, metadata):
        kv_type = self.q_type if self.use_paged_legacy else self.kv_cache_manager.dtype
        for plan in (self.prefill_wrapper.plan, self.decode_wrapper.plan):
            plan(metadata.kv_indptr, metadata.kv_indices, q_data_type=self.q_type, kv_data_type=kv_type)  # positive: CL002 legacy paged path plans kv as q
        native = self.kv_cache_manager.dtype if "fp8" in str(self.kv_cache_manager.dtype) else self.q_type
        self.decode_wrapper.plan(metadata.kv_indptr, q_data_type=self.q_type, kv_data_type=native)  # negative: q only for a non-FP8 pool
        return metadata.seq_lens.to(torch.int32)  # negative: lengths
""",
}

SETUP = {
    "setup_only_helper_sglang": """\
import torch


def widen_pool(buf):
    return buf.to(torch.bfloat16)


def widen_layer(buf):
    return buf.to(torch.bfloat16)  # positive: CL001 called per step below


class MirrorBackend:
    def __init__(self, model_runner):
        self.pool = model_runner.token_to_kv_pool
        self.snapshot = widen_pool(self.pool.get_key_buffer(0))  # negative: once, at construction

    def forward_decode(self, q, k, v, layer, forward_batch):
        wide = widen_layer(self.pool.get_key_buffer(layer.layer_id))
        return wide, forward_batch.seq_lens.to(torch.int32)  # negative: lengths
""",
    "helper_chain_from_setup_hook_vllm": """\
import torch


def _dense(kv_cache):
    return kv_cache.to(torch.float16)


def _prepare(kv_caches):
    return [_dense(c) for c in kv_caches]


class ShadowConnector:
    def register_kv_caches(self, kv_caches):
        self.dense = _prepare(list(kv_caches.values()))  # negative: a setup hook, through a helper chain

    def save_kv_layer(self, layer_name, kv_layer, attn_metadata, **kwargs):
        return kv_layer.to(torch.float16)  # positive: CL001 the layer's whole cache, per layer per step
""",
    "helper_also_called_per_step_lmdeploy": """\
import torch


def upcast(cache):
    return cache.float()  # positive: CL001 per step from forward as well


def upcast_once(cache):
    return cache.half()


class CacheMirror:
    def __init__(self, cache_engine):
        self.cache_engine = cache_engine
        self.first = upcast(cache_engine.gpu_cache[0][0])
        self.once = upcast_once(cache_engine.gpu_cache[0][1])  # negative: at construction only

    def _async_model_forward(self, inputs, swap_in_map, swap_out_map):
        return upcast(self.cache_engine.gpu_cache[inputs.layer][0])
""",
}

PACKAGES = {
    "module_alias_setup_caller_trtllm": {
        "trt_spec/__init__.py": "",
        "trt_spec/convert.py": """
            import torch


            def seed_layer(buf):
                return buf.to(torch.bfloat16)  # negative: called only at construction


            def mirror_layer(buf, out):
                out.copy_(buf.to(out.dtype))  # positive: CL001 per step from the drafter's forward
        """,
        "trt_spec/drafter.py": """
            from . import convert as cv


            class Eagle3Drafter:
                def __init__(self, kv_cache_manager, layers):
                    self.mgr = kv_cache_manager
                    self.seeds = [cv.seed_layer(kv_cache_manager.get_buffers(i)) for i in layers]

                def forward(self, q, k, v, attn_metadata, out):
                    for i in range(4):
                        cv.mirror_layer(self.mgr.get_buffers(i), out)
                    return out
        """,
    },
    "from_import_setup_hook_vllm": {
        "vllm_conn/__init__.py": "",
        "vllm_conn/ops.py": """
            import torch


            def stage_all(kv_cache):
                return kv_cache.to(torch.float16)  # negative: only a setup hook calls it


            def stage_layer(kv_layer):
                return kv_layer.to(torch.float16)  # positive: CL001 per layer per step
        """,
        "vllm_conn/connector.py": """
            from .ops import stage_all, stage_layer


            class StagingConnector:
                def register_kv_caches(self, kv_caches):
                    self.staged = {n: stage_all(c) for n, c in kv_caches.items()}

                def save_kv_layer(self, layer_name, kv_layer, attn_metadata, **kwargs):
                    return stage_layer(kv_layer)
        """,
    },
}

ALL = {**CHOICES, **SETUP}


@pytest.mark.parametrize("name", sorted(ALL))
def test_marked_lines(tmp_path, name):
    assert_marked_lines(tmp_path, name, ALL[name])


@pytest.mark.parametrize("filler", [False, True], ids=["as-is", "with-filler"])
@pytest.mark.parametrize("name", sorted(ALL))
def test_pruned_is_whole(tmp_path, name, filler):
    assert_pruned_is_whole(tmp_path, name, ALL[name], filler)


@pytest.fixture
def _tree_cache(tmp_path, monkeypatch):
    yield from fresh_tree_caches(tmp_path, monkeypatch)


@pytest.mark.parametrize("prune", [True, False])
@pytest.mark.parametrize("name", sorted(PACKAGES))
def test_setup_callers_across_modules(tmp_path, name, prune, _tree_cache):
    write_tree(tmp_path, PACKAGES[name])
    expected = marked_lines(tmp_path)
    assert expected
    assert tree_findings(tmp_path, prune=prune) == expected
