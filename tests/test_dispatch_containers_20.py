"""Issue 19, round 20 (family_recall_18: f2 dynamic dispatch), in sglang, vLLM, lmdeploy and TRT-LLM styles
other than the corpus's:
- `getattr(self, <name built from constant parts>)` (an f-string, `"prefix" + x`), held in a name or called
  at once: every method of the class family whose name fits runs, subclass overrides included, and its
  parameters take the call's arguments; a name whose parts fold to constants picks only those methods;
- a bound method `self.m` read uncalled in a base's template runs the subclass's override of m too.
Each positive has look-alikes beside it; the pruned analysis gives the whole file's findings, with and
without filler."""

from __future__ import annotations

import pytest

from marked_cases import assert_marked_lines, assert_pruned_is_whole

CASES = {
    "getattr_fstring_unknown_phase_sglang": """\
import torch


class PhaseBackend:
    def __init__(self, model_runner):
        self.pool = model_runner.token_to_kv_pool

    def forward(self, q, k, v, layer, forward_batch):
        run = getattr(self, f"_run_{forward_batch.forward_mode.name.lower()}")
        return run(q, self.pool.get_key_buffer(layer.layer_id), forward_batch)

    def _run_decode(self, q, k_buf, forward_batch):
        return q

    def _run_extend(self, q, k_buf, forward_batch):
        return q

    def _widen_keys(self, q, k_buf, forward_batch):
        return k_buf.to(q.dtype)  # negative: no name of the template


class NoFp8PhaseBackend(PhaseBackend):
    def _run_decode(self, q, k_buf, forward_batch):
        return k_buf.to(q.dtype)  # positive: CL001

    def _run_extend(self, q, k_buf, forward_batch):
        return k_buf[forward_batch.out_cache_loc].to(q.dtype)  # negative: this batch's rows
""",
    "getattr_concat_called_at_once_vllm": """\
import torch


class ImplBase:
    def forward(self, layer, query, key, value, kv_cache, attn_metadata):
        kind = attn_metadata.kind
        return getattr(self, "_attend_" + kind)(query, kv_cache, attn_metadata)

    def _attend_paged(self, query, kv_cache, attn_metadata):
        return query

    def _attend_prefill(self, query, kv_cache, attn_metadata):
        return query

    def scale_for(self, layer, query):
        return layer._k_scale.to(query.dtype)  # negative: the scale


class DenseFallbackImpl(ImplBase):
    def _attend_paged(self, query, kv_cache, attn_metadata):
        key_cache, value_cache = kv_cache.unbind(0)
        return key_cache.to(query.dtype), value_cache  # positive: CL001

    def _attend_prefill(self, query, kv_cache, attn_metadata):
        rows = kv_cache[:, attn_metadata.block_table[0]]
        return rows.to(query.dtype)  # negative: the prefill's blocks
""",
    "getattr_folded_names_only_trtllm": """\
import torch


class StepBase:
    def forward(self, q, metadata):
        mode = "gen" if metadata.num_contexts == 0 else "ctx"
        step = getattr(self, f"_{mode}_step")
        return step(q, metadata.kv_cache_manager.get_buffers(metadata.layer_idx))

    def _gen_step(self, q, buf):
        return q

    def _ctx_step(self, q, buf):
        return q

    def _dbg_step(self, q, buf):
        return buf.float()  # negative: the folded names are _gen_step and _ctx_step only


class Sm80Step(StepBase):
    def _gen_step(self, q, buf):
        return buf[:, 0].to(q.dtype)  # positive: CL001
""",
    "bound_override_held_lmdeploy": """\
import torch


class AttnBase:
    def forward(self, query, key, value, past_key_value, attn_metadata):
        k_cache, v_cache = past_key_value
        read = self.read_cache
        return read(k_cache, query.dtype), self.read_rows(k_cache, attn_metadata)

    def read_cache(self, cache, dtype):
        return cache

    def read_rows(self, cache, attn_metadata):
        return cache[attn_metadata.block_offsets].half()  # negative: the batch's blocks


class Int8DequantAttn(AttnBase):
    def read_cache(self, cache, dtype):
        return cache.to(dtype)  # positive: CL001
""",
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_marked_lines(tmp_path, name):
    assert_marked_lines(tmp_path, name, CASES[name])


@pytest.mark.parametrize("name", sorted(CASES))
@pytest.mark.parametrize("filler", [False, True], ids=["as-is", "with-filler"])
def test_pruned_is_whole(tmp_path, name, filler):
    assert_pruned_is_whole(tmp_path, name, CASES[name], filler)
