"""Issue 19, round 13, leftovers of family_recall_11 (f3, f4, f7), in sglang, vLLM, lmdeploy and TRT-LLM
styles other than the corpus's:
- a parameter's default is what a call that leaves it out passes (`lambda b=mgr.get_buffers(i): b.to(dt)`
  stored in __init__ and called from forward; a nested def with a pool default);
- an allocation whose shape is one object the file does not spell (`torch.zeros(spec.shape)`,
  `torch.empty(backend.get_kv_cache_shape(...))`): its slots may be dimension 1 (vLLM's (2, num_blocks, ...)),
  so `cache[:, -w:]` / `cache[:, :n]` are windows of blocks; a spelled shape keeps dimension 0 as the slots;
- lists of per-stage lists (`[[] for _ in range(pp)]` filled by `.append` or by a store of a list into an
  element) read by stage then layer, and sliced (a slice of a Python list keeps its elements), where the
  attribute is also set to None first (a None value hides nothing); an accessor's receiver passed to a
  method of the class (`self._bind(metadata.kv_cache_manager)`) is spelled by what the call passes;
- slice bounds read from a record's fields (`kbuf[w.start : w.end]`): what every construction of the record
  passes for the field, through copies (`_replace`); one record spanning `0..buf.shape[0]` makes it whole;
Each positive has look-alikes beside it (gathers, lengths, scales, the query, one-time setup); the pruned
analysis gives the whole file's findings, with and without filler."""

from __future__ import annotations

import pytest

from castlint.tables import load_tables
from marked_cases import FILLER
from marked_cases import check as _check
from test_call_indirection_11 import _findings, _marked, _own_tree_cache  # noqa: F401

TABLES = load_tables()

CASES = {
    "default_bound_layer_sglang": """\
import torch


class BoundDefaultsBackend:
    def __init__(self, model_runner):
        pool = model_runner.token_to_kv_pool
        self.dtype = model_runner.dtype
        self.widen = {
            lid: (lambda kb=pool.get_key_buffer(lid), dt=self.dtype: kb.to(dt))  # positive: CL001
            for lid in range(model_runner.num_layers)
        }
        self.lens = lambda n=model_runner.req_to_token_pool.req_to_token: n.to(torch.int32)  # negative: a table
        self.sized = lambda dt=torch.float32: torch.zeros(8).to(dt)  # negative: a fresh tensor
        self.once = pool.get_value_buffer(0).float()  # negative: converted once in __init__

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        dense = self.widen[layer.layer_id]()
        lens = self.lens()
        return dense, lens, self.sized(), q.to(self.dtype)  # negative: the query
""",
    "default_given_by_every_call_vllm": """\
import torch


class PassedOverDefault:
    def __init__(self, kv_caches):
        self.kv_caches = kv_caches
        self.rows = lambda t=kv_caches[0]: t.to(torch.bfloat16)  # negative: every call passes rows

    def forward(self, layer, query, key, value, kv_cache, attn_metadata, output=None):
        got = self.rows(kv_cache[:, attn_metadata.block_table[0]])
        return got, query.float()  # negative: the query
""",
    "nested_def_default_lmdeploy": """\
import torch


class DefaultHelperImpl:
    def forward(self, query, key, value, k_cache, v_cache, attn_metadata, k_scales_zeros=None, v_scales_zeros=None):
        def dense(cache=k_cache, dt=query.dtype):
            return cache.to(dt)  # positive: CL001

        def gathered(cache=v_cache, idx=attn_metadata.block_offsets):
            return cache[idx].to(query.dtype)  # negative: the step's blocks gathered first

        def scaled(s=k_scales_zeros):
            return s.float()  # negative: the scales

        return dense(), gathered(), scaled()
""",
    "opaque_shape_windows_vllm": """\
import torch


class SpecShapedRunner:
    def initialize_kv_cache(self, kv_cache_config):
        self.caches = {}
        self.kv_buffer = torch.zeros(kv_cache_config.num_blocks, 16, 8, 128, dtype=torch.float8_e4m3fn)
        for spec in kv_cache_config.kv_cache_specs:
            shape = self.attn_backend.get_kv_cache_shape(spec.num_blocks, spec.block_size, 8, 128)
            self.caches[spec.layer_name] = torch.empty(shape, dtype=torch.float8_e4m3fn)

    def execute_model(self, scheduler_output, intermediate_tensors=None):
        out = []
        for name, cache in self.caches.items():
            out.append(cache.to(torch.bfloat16))  # positive: CL001
            out.append(cache[:, -scheduler_output.window :].to(torch.bfloat16))  # negative: the last blocks
            out.append(cache[:, : scheduler_output.num_used_blocks].float())  # negative: the first blocks
            out.append(cache[:, :, :, :64].half())  # positive: CL001
        heads = self.kv_buffer[:, -4:].to(torch.bfloat16)  # positive: CL001
        tail = self.kv_buffer[-scheduler_output.total_num_scheduled_tokens :].float()  # negative: the last tokens
        return out, heads, tail
""",
    "stage_lists_append_sglang": """\
import torch


class StagedLayerBackend:
    def __init__(self, model_runner):
        self.per_stage = None
        self.pp_rank = model_runner.pp_rank
        self.lens_per_stage = None

    def _fill(self, pool, stages, per):
        self.per_stage = [[] for _ in range(stages)]
        self.lens_per_stage = [[] for _ in range(stages)]
        for s in range(stages):
            for j in range(per):
                self.per_stage[s].append(pool.get_key_buffer(s * per + j))
                self.lens_per_stage[s].append(torch.zeros(8, dtype=torch.int64))

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        if self.per_stage is None:
            self._fill(forward_batch.token_to_kv_pool, 4, 8)
        mine = self.per_stage[self.pp_rank]
        whole = mine[layer.layer_id % 8].to(q.dtype)  # positive: CL001
        head = [t.float() for t in mine[:2]]  # positive: CL001
        rows = [t[forward_batch.out_cache_loc].to(q.dtype) for t in mine[1:]]  # negative: rows gathered
        lens = [n.to(torch.int32) for n in self.lens_per_stage[self.pp_rank][:1]]  # negative: lengths
        tail = self.per_stage[self.pp_rank][0][:8].to(q.dtype)  # negative: the first rows only
        return whole, head, rows, lens, tail
""",
    "stage_dict_lists_trtllm": """\
import torch


class StageTableAttention:
    def __init__(self, layer_idx, pp_rank):
        self.layer_idx = layer_idx
        self.pp_rank = pp_rank
        self.table = None

    def _bind(self, manager, stages, per):
        if self.table is None:
            self.table = {s: [] for s in range(stages)}
            self.table[self.pp_rank] = [manager.get_buffers(self.pp_rank * per + j) for j in range(per)]

    def forward(self, q, k, v, metadata, **kwargs):
        self._bind(metadata.kv_cache_manager, metadata.pp_size, metadata.layers_per_stage)
        first = [b.to(q.dtype) for b in self.table[self.pp_rank][-1:]]  # positive: CL001
        pool = metadata.kv_cache_manager.get_buffers(self.layer_idx)
        chunks = [c.to(q.dtype) for c in pool[: metadata.num_ctx_tokens]]  # negative: rows of the step's window
        return first, chunks, k.to(q.dtype)  # negative: the step's keys
""",
    "span_records_vllm": """\
from dataclasses import dataclass, replace

import torch


@dataclass
class Span:
    lo: int
    hi: int


class SpanReader:
    def __init__(self):
        self.dtype = torch.bfloat16

    def forward(self, layer, query, key, value, kv_cache, attn_metadata, output=None):
        full = Span(0, kv_cache.shape[1])
        spans = [replace(full, lo=0)]
        cut = attn_metadata.num_prefill_blocks
        windows = [Span(0, cut), Span(cut, attn_metadata.num_blocks_used)]
        out = [kv_cache[:, s.lo : s.hi].to(self.dtype) for s in spans]  # positive: CL001
        part = [kv_cache[:, s.lo : s.hi].to(self.dtype) for s in windows]  # negative: the step's blocks only
        qs = [query[s.lo : s.hi].float() for s in spans]  # negative: the query
        return out, part, qs
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
    assert negatives
    assert positives - found == set()
    assert {line for _, line in found} & negatives == set()


@pytest.mark.parametrize("name", sorted(CASES))
@pytest.mark.parametrize("filler", [False, True], ids=["as-is", "with-filler"])
def test_pruned_is_whole(tmp_path, name, filler):
    path = tmp_path / f"{name}.py"
    path.write_text(CASES[name] + (FILLER if filler else ""))
    assert _check(path, True) == _check(path, False)
