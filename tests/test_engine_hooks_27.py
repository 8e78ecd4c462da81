"""Round 27 (family_recall_25): per-step hooks of backends and CUDA-graph runners, in vLLM, lmdeploy and
TRT-LLM styles other than the corpus's:
- a per-step hook handed an engine object writes converted caches back onto the object's cache attribute
  (rules/accessors.toml [cache_attributes]: `ctx.kv_caches = [(k.half(), v.half()) for k, v in ctx.kv_caches]`):
  the file's store is not all the attribute holds (the engine fills it each step), so the entries it reads
  are the engine's whole caches; look-alikes (a row gather first, a same-dtype cast, sequence lengths, a
  `.to(device)`, setup in __init__) stay quiet;
- a CUDA-graph runner whose per-step `forward(self, **kwargs)` / `__call__` reads `kwargs["past_key_values"]`
  beside a `capture(self, **kwargs)` reading it too (rules/conventions.toml `beside`): the model's per-layer
  caches, handed to a helper or an override that converts them; an HF-style forward(**kwargs) with no
  capture beside it, and capture alone, stay quiet.
The pruned analysis gives the whole file's findings, with and without filler."""

from __future__ import annotations

import pytest

from marked_cases import assert_marked_lines, assert_pruned_is_whole

CASES = {
    # --- a hook writes converted caches back onto the object it is handed ---------------------------
    "runner_kv_caches_rebound_vllm": """\
import torch


class Fp16FallbackHook:
    def __init__(self, runner):
        self.probe = [c.to(torch.float16) for c in runner.kv_caches]  # negative: setup, in __init__

    def on_step(self, runner, block_ids):
        runner.kv_caches = [(k.half(), v.half()) for k, v in runner.kv_caches]  # positive: CL001 each plane per step
        rows = [(k[block_ids].half(), v) for k, v in runner.kv_caches]  # negative: the request's blocks first
        same = [(k.to(k.dtype), v) for k, v in runner.kv_caches]  # negative: same dtype
        runner.seq_lens = runner.seq_lens.to(torch.int32)  # negative: sequence lengths
        return rows, same
""",
    "step_context_by_layer_dict_lmdeploy": """\
import torch


class CambriconOpsBackend:
    @classmethod
    def update_step_context(cls, step_context):
        widened = {}
        for idx, (k_cache, v_cache) in enumerate(step_context.kv_caches):
            widened[idx] = (k_cache.float(), v_cache)  # positive: CL001 each whole K cache per step
        step_context.kv_caches = list(widened.values())
        step_context.kv_start_loc = step_context.kv_start_loc.to(torch.int32)  # negative: start locations
        step_context.block_offsets = step_context.block_offsets.to(step_context.kv_seqlens.device)  # negative: device
        return step_context
""",
    "metadata_caches_zip_trtllm": """\
import torch


class WidenBeforeForward:
    def __init__(self, names, scale):
        self.names = names
        self.scale = scale.to(torch.float32)  # negative: a scale tensor, at setup

    def begin_forward(self, metadata):
        metadata.kv_caches = [(n, k.float()) for n, (k, v) in zip(self.names, metadata.kv_caches)]  # positive: CL001
        metadata.kv_lens = metadata.kv_lens.to("cuda")  # negative: .to(device)
        return [(n, s.float()) for n, s in zip(self.names, metadata.kv_scales)]  # negative: scales, not caches
""",
    # --- a CUDA-graph runner's **kwargs beside capture -------------------------------------------------
    "graph_runner_override_get_lmdeploy": """\
import torch


class StaticGraphRunner:
    def _stage(self, caches):
        return caches

    def capture(self, **kwargs):
        self.static = self._stage(kwargs.get("past_key_values"))
        self.widened_once = [kv[0].to(torch.float16) for kv in kwargs["past_key_values"]]  # negative: setup, at capture

    def forward(self, **kwargs):
        staged = self._stage(kwargs.get("past_key_values"))
        ids = kwargs["input_ids"].to(torch.int32)  # negative: token ids
        return staged, ids


class Fp16StaticGraphRunner(StaticGraphRunner):
    def _stage(self, caches):
        return [kv[0].to(torch.float16) for kv in caches]  # positive: CL001 each whole K cache per replay
""",
    "graph_runner_call_pop_lmdeploy": """\
import torch


class ReplayRunner:
    def capture(self, **kwargs):
        self.kv = [(k.to(torch.float16), v) for k, v in kwargs.pop("past_key_values")]  # negative: setup
        return self.kv

    def __call__(self, **kwargs):
        for (sk, sv), (k, v) in zip(self.kv, kwargs.pop("past_key_values")):
            sk.copy_(k.to(torch.float16))  # positive: CL001 whole K cache per replay
            sv.copy_(v)
        self.seqlens.copy_(kwargs.pop("kv_seqlens").to(torch.int32))  # negative: sequence lengths


class HFStyleWrapper:
    def forward(self, **kwargs):
        return [k.to(torch.float16) for k, v in kwargs["past_key_values"]]  # negative: no convention beside it
""",
    "graph_runner_inherited_capture_lmdeploy": """\
import torch


class GraphRunnerBase:
    def capture(self, **kwargs):
        self.inputs = dict(kwargs)
        return kwargs["past_key_values"]


class MLUGraphRunner(GraphRunnerBase):
    def forward(self, **kwargs):
        caches = kwargs["past_key_values"]
        wide = [entry[1].to(torch.bfloat16) for entry in caches]  # positive: CL001 each whole V cache per step
        scales = [entry[2].to(torch.bfloat16) for entry in caches]  # negative: the entry's scales
        moved = [entry[0].to(self.device) for entry in caches]  # negative: .to(device)
        return wide, scales, moved
""",
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_marked_lines(tmp_path, name):
    assert_marked_lines(tmp_path, name, CASES[name])


@pytest.mark.parametrize("name", sorted(CASES))
@pytest.mark.parametrize("filler", [False, True])
def test_pruned_is_whole(tmp_path, name, filler):
    assert_pruned_is_whole(tmp_path, name, CASES[name], filler)
