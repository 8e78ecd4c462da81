"""Issue 19, round 14, call indirection (f4) and engine accessors, backends and CUDA graphs (f6), in sglang,
vLLM, lmdeploy and TRT-LLM styles other than family_recall_12's:
- `contextlib.ExitStack().callback(f, dst, kv)` runs f(dst, kv) when the block ends (rules/accessors.toml
  [callables] runner_makers, made_runner_methods, self_entering_contexts); the copy destination's dtype is
  what the helper's callers (runs included) pass, through `d.get(k)` too;
- a call of a property (`self.widen(buf)`) runs the callable its getter returns;
- a function chosen once (`self.up = _fast if use_kernel else _ref`) is either (the pruner aliases both);
- a slice store into a buffer of a held list (`for i, dst in enumerate(self.mirrors): dst[:] = pool...`):
  the store itself is no value of dst;
- a helper object constructed in one-time setup with the registered caches, converting them all in a
  method a per-step hook calls (the pruner keeps the construction: it feeds `__init__`);
- CL002: a plan helper whose dtype parameters a call leaves to their bf16 defaults (a `*geo` spread of a
  shown tuple counted) is reported at the helper's own plan.
Each positive has look-alikes beside it; the pruned analysis gives the whole file's findings, with and
without filler."""

from __future__ import annotations

import pytest

from castlint.tables import load_tables
from marked_cases import FILLER
from marked_cases import check as _check

TABLES = load_tables()

CASES = {
    "chosen_attribute_vllm": """\
import torch


def _dequant_ref(t, dtype):
    return t.to(dtype)  # positive: CL001


def _dequant_fast(t, dtype):
    return torch.ops._C.fp8_dequant(t, dtype)


def _lens_ref(t):
    return t.to(torch.int32)  # negative: only lengths


class ChosenDequantImpl:
    def __init__(self, num_heads, head_size, scale, use_kernel=False):
        self.up = _dequant_fast if use_kernel else _dequant_ref
        self.lens = _lens_ref if use_kernel else _lens_ref

    def forward(self, layer, query, key, value, kv_cache, attn_metadata, output=None):
        full = self.up(kv_cache, query.dtype)
        lens = self.lens(attn_metadata.seq_lens)
        return full, lens
""",
    "construction_fed_vllm": """\
import torch


class HostShadow:
    def __init__(self, tensors, dtype):
        self.srcs = tensors
        self.dtype = dtype

    def sync(self, block_ids):
        return [c[block_ids].to(self.dtype) for c in self.srcs]  # negative: the step's blocks

    def sync_all(self):
        return [c.to(self.dtype) for c in self.srcs]  # positive: CL001


class ShadowConnector:
    def __init__(self, vllm_config, role):
        self.block_size = vllm_config.cache_config.block_size

    def register_kv_caches(self, kv_caches):
        self.shadow = HostShadow([kv_caches[name] for name in sorted(kv_caches)], torch.float16)

    def start_load_kv(self, forward_context, **kwargs):
        for blocks in self._pending():
            self.shadow.sync(blocks)

    def wait_for_save(self):
        self.shadow.sync_all()

    def _pending(self):
        return []
""",
    "exitstack_callback_sglang": """\
import contextlib

import torch


class StagedMirrorBackend:
    def __init__(self, model_runner):
        self.dtype = model_runner.dtype
        self.pool = model_runner.token_to_kv_pool
        self.timer = model_runner.timer
        self.stage = torch.empty(model_runner.stage_shape, dtype=torch.bfloat16, device="cuda")
        self.lens = torch.empty(model_runner.max_bs, dtype=torch.int32, device="cuda")

    def _refresh(self, dst, src):
        dst.copy_(src)  # positive: CL001

    def _store_lens(self, dst, src):
        dst.copy_(src)  # negative: only ever given the batch's lengths

    def _rows(self, out, src):
        out.copy_(src)  # negative: handed to a callback of an object no ExitStack made

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        with contextlib.ExitStack() as stack:
            stack.callback(self._refresh, self.stage, self.pool.get_key_buffer(layer.layer_id))
            stack.callback(self._store_lens, self.lens, forward_batch.seq_lens)
            self.timer.callback(self._rows, self.stage, self.pool.get_value_buffer(layer.layer_id))
            out = q.to(self.dtype)  # negative: the query
        return out
""",
    "plan_default_dtypes_sglang": """\
import torch
from flashinfer.mla import BatchMLAPagedAttentionWrapper


def _plan_with(wrapper, qo, kv, idx, lens, heads, q_dtype=torch.bfloat16, *, kv_dtype=torch.bfloat16):
    wrapper.plan(  # positive: CL002
        qo, kv, idx, lens, heads, 512, 64, 1, False, 0.07, q_data_type=q_dtype, kv_data_type=kv_dtype
    )


class DefaultPlanBackend:
    def __init__(self, model_runner):
        self.wrapper = BatchMLAPagedAttentionWrapper(model_runner.workspace)
        self.kv_cache_dtype = model_runner.kv_cache_dtype
        self.heads = model_runner.num_heads

    def _own_plan(self, qo, kv, idx, lens, kv_dtype=None):
        self.wrapper.plan(  # negative: every caller passes the pool's dtype
            qo, kv, idx, lens, self.heads, 512, 64, 1, False, 0.07, q_data_type=torch.bfloat16, kv_data_type=kv_dtype
        )

    def init_forward_metadata(self, forward_batch):
        geo = (forward_batch.qo_indptr, forward_batch.kv_indptr, forward_batch.kv_indices, forward_batch.seq_lens)
        _plan_with(self.wrapper, *geo, self.heads)
        self._own_plan(*geo, kv_dtype=self.kv_cache_dtype)
        _plan_with(self.wrapper, *geo, self.heads, kv_dtype=self.kv_cache_dtype)  # negative: the pool's dtype passed
""",
    "property_converter_trtllm": """\
import torch


class PropertyConverterAttention:
    def __init__(self, layer_idx, dtype):
        self.layer_idx = layer_idx
        self.dtype = dtype

    @property
    def widen(self):
        def run(t):
            return t.to(self.dtype)  # positive: CL001

        return run

    @property
    def as_index(self):
        return lambda t: t.to(torch.int64)  # negative: only given the sequence lengths

    def forward(self, q, k, v, attn_metadata):
        buf = attn_metadata.kv_cache_manager.get_buffers(self.layer_idx)
        dense = self.widen(buf)
        ids = self.as_index(attn_metadata.seq_lens)
        return dense, ids
""",
    "slice_store_loop_sglang": """\
import torch


class MirrorReplayRunner:
    def __init__(self, model_runner):
        self.pool = model_runner.token_to_kv_pool
        self.mirrors = [
            torch.empty(model_runner.kv_shape, dtype=torch.bfloat16, device="cuda")
            for _ in range(model_runner.num_layers)
        ]

    def replay(self, forward_batch, layer_id):
        for i, dst in enumerate(self.mirrors):
            dst[:] = self.pool.get_value_buffer(i)  # positive: CL001
        rows = forward_batch.out_cache_loc
        for i, dst in enumerate(self.mirrors):
            dst[: rows.numel()] = self.pool.get_value_buffer(i)[rows]  # negative: the step's rows
        lens = forward_batch.seq_lens.to(torch.int32)  # negative: lengths
        return self.mirrors[layer_id], lens
""",
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_marked_lines(tmp_path, name):
    path = tmp_path / f"{name}.py"
    path.write_text(CASES[name])
    lines = CASES[name].splitlines()
    found = {(code, line) for code, line, _ in _check(path, False)}
    positives = {
        (text.split("# positive: ")[1].split()[0], i) for i, text in enumerate(lines, 1) if "# positive" in text
    }
    negatives = {i for i, text in enumerate(lines, 1) if "# negative" in text}
    assert positives and negatives
    assert positives - found == set()
    assert {line for _, line in found} & negatives == set()


@pytest.mark.parametrize("name", sorted(CASES))
@pytest.mark.parametrize("filler", [False, True], ids=["as-is", "with-filler"])
def test_pruned_is_whole(tmp_path, name, filler):
    path = tmp_path / f"{name}.py"
    path.write_text(CASES[name] + (FILLER if filler else ""))
    assert _check(path, True) == _check(path, False)


def test_the_new_facts_are_rules():
    assert "contextlib.ExitStack" in TABLES.runner_makers
    assert "callback" in TABLES.made_runner_methods
    assert "contextlib.ExitStack" in TABLES.self_entering_contexts
