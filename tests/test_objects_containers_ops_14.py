"""Objects, containers and whole-keeping ops on unseen shapes (family_recall_12 round, f1, f3, f5): each
look-alike beside the positives that must stay found, in sglang, vLLM, lmdeploy and TensorRT-LLM styles.
None of these is a file of the corpus.

- *slice bounds decided by value*: a stop past any extent (`sys.maxsize`, a huge int literal, through a
  module constant) keeps every row; a stop of 0 or a start at the pool's own extent is empty;
- *record fields as slice bounds*: `w.stop` of `w = Span(0, meta.n)` is the step's, of `Span(0, buf.shape[0])`
  the extent (the record's class name says nothing);
- *slice objects held*: `buf[rec.span]` of a record built with `slice(None)`, a module constant `ALL = slice(None)`;
- *new_tensor without dtype=*: `q.new_tensor(pool)` converts the pool to q's dtype;
- *every row joined*: `torch.stack(list(pool))`, `torch.cat([r for r in pool])`, `torch.stack([*pool])`;
- *f-string keys*: keys told apart by their literal parts (`f"{i}.k"` is not `f"{i}.lens"`);
- *introspected callables*: a partial's `.args` / `.keywords`, a closure's cells (sorted free variables), a
  bound method's `__self__`.

A marker `# positive CLxxx` names the code expected on that line. The pruned analysis gives the whole
file's findings, with and without unrelated filler."""

from __future__ import annotations

import re

import pytest

from castlint.tables import load_tables
from marked_cases import FILLER
from marked_cases import check as _check

TABLES = load_tables()
_MARK = re.compile(r"# positive (CL\d{3})")

CASES = {
    # -- slice bounds decided by value ------------------------------------------------------------
    "slice_bounds_sglang": """
import sys

import torch

END = sys.maxsize


class BoundsBackend:
    def __init__(self, model_runner):
        self.pool = model_runner.token_to_kv_pool
        self.dtype = model_runner.dtype

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        buf = self.pool.get_key_buffer(layer.layer_id)
        a = buf[:END].to(self.dtype)  # positive CL001
        b = buf[0 : 2**63 - 1].float()  # positive CL001
        c = buf[:0].to(self.dtype)  # negative: empty
        d = buf[len(buf):].to(self.dtype)  # negative: starts at the end
        e = buf[buf.size(0):].float()  # negative: starts at the end
        f = buf[: forward_batch.seq_lens_sum].to(self.dtype)  # negative: the step's tokens
        g = buf[1:].to(self.dtype)  # positive CL001
        return a, b, c, d, e, f, g
""",
    # -- record fields as slice bounds -------------------------------------------------------------
    "record_bounds_trtllm": """
from dataclasses import dataclass

import torch


@dataclass
class PageSpan:
    lo: int
    hi: int


class SpanAttention:
    def __init__(self, layer_idx, dtype):
        self.layer_idx = layer_idx
        self.dtype = dtype

    def forward(self, q, k, v, attn_metadata, **kwargs):
        pool = attn_metadata.kv_cache_manager.get_buffers(self.layer_idx)
        every = PageSpan(0, pool.shape[0])
        a = pool[every.lo : every.hi].to(self.dtype)  # positive CL001
        live = PageSpan(0, attn_metadata.num_generations)
        b = pool[live.lo : live.hi].to(self.dtype)  # negative: the step's pages
        fixed = PageSpan(0, 64)
        c = pool[fixed.lo : fixed.hi].to(self.dtype)  # negative: a constant window
        return a, b, c
""",
    # -- slice objects held in names and records ---------------------------------------------------
    "held_slices_vllm": """
from typing import NamedTuple

import torch

ALL = slice(None)


class Cut(NamedTuple):
    name: str
    rows: slice


class HeldSliceImpl:
    def __init__(self, num_heads, head_size, scale):
        self.cuts = [Cut("all", slice(None, None))]

    def forward(self, layer, query, key, value, kv_cache, attn_metadata, output=None):
        a = kv_cache[ALL].to(query.dtype)  # positive CL001
        b = kv_cache[self.cuts[0].rows].to(query.dtype)  # positive CL001
        window = slice(0, attn_metadata.num_actual_tokens)
        c = kv_cache[window].to(query.dtype)  # negative: the step's blocks
        head = Cut("head", slice(0, attn_metadata.num_actual_tokens))
        d = kv_cache[head.rows].to(query.dtype)  # negative: the step's blocks
        return a, b, c, d
""",
    # -- new_tensor without dtype= -----------------------------------------------------------------
    "new_tensor_lmdeploy": """
import torch


class NewTensorImpl:
    def __init__(self, block_size):
        self.block_size = block_size

    def forward(self, query, key, value, k_cache, v_cache, attn_metadata,
                k_scales_zeros=None, v_scales_zeros=None, inplace=True):
        kq = query.new_tensor(k_cache)  # positive CL001
        vq = key.new_tensor(v_cache, device=query.device)  # positive CL001
        lens = query.new_tensor(attn_metadata.q_seqlens)  # negative: lengths
        picked = query.new_tensor(k_cache[attn_metadata.block_offsets])  # negative: gathered blocks
        return kq, vq, lens, picked
""",
    # -- every row joined again --------------------------------------------------------------------
    "rows_joined_sglang": """
import torch


class RowsBackend:
    def __init__(self, model_runner):
        self.pool = model_runner.token_to_kv_pool
        self.dtype = model_runner.dtype

    def forward_extend(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        kbuf = self.pool.get_key_buffer(layer.layer_id)
        vbuf = self.pool.get_value_buffer(layer.layer_id)
        a = torch.cat([row for row in kbuf]).to(self.dtype)  # positive CL001
        rows = tuple(vbuf)
        b = torch.stack(rows[:]).float()  # positive CL001
        c = torch.stack([*kbuf]).to(self.dtype)  # positive CL001
        d = torch.stack(rows[:2]).float()  # negative: two rows
        idx = forward_batch.out_cache_loc
        e = torch.stack([kbuf[i] for i in idx]).to(self.dtype)  # negative: the step's rows
        return a, b, c, d, e
""",
    # -- keys spelled as f-strings -----------------------------------------------------------------
    "fstring_keys_sglang": """
import torch


class NamedBuffersBackend:
    def __init__(self, model_runner):
        pool = model_runner.token_to_kv_pool
        self.dtype = model_runner.dtype
        self.named = {}
        for i in range(model_runner.num_layers):
            self.named[f"L{i}/key"] = pool.get_key_buffer(i)
            self.named[f"L{i}/lens"] = torch.zeros(8, dtype=torch.int32)

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        lid = layer.layer_id
        a = self.named[f"L{lid}/key"].to(self.dtype)  # positive CL001
        b = self.named.get(f"L{lid}/lens").to(self.dtype)  # negative: lengths under the same naming
        c = self.named[f"L{lid}/key"][forward_batch.out_cache_loc].to(self.dtype)  # negative: gathered
        return a, b, c
""",
    # -- introspected callables --------------------------------------------------------------------
    "partial_parts_lmdeploy": """
import functools

import torch


def _paged_kernel(offsets, q, cache=None, scale=1.0):
    return q


class PartialPartsImpl:
    def __init__(self, block_size):
        self.block_size = block_size

    def forward(self, query, key, value, k_cache, v_cache, attn_metadata,
                k_scales_zeros=None, v_scales_zeros=None, inplace=True):
        run = functools.partial(_paged_kernel, attn_metadata.block_offsets, cache=k_cache, scale=0.5)
        dense = run.keywords["cache"].half()  # positive CL001
        offs = run.args[0].long()  # negative: block offsets
        again = functools.partial(_paged_kernel, v_cache)
        vd = again.args[0].float()  # positive CL001
        return run.func(offs, dense), vd
""",
    "closure_cells_vllm": """
import torch


class ClosureCellsImpl:
    def __init__(self, num_heads, head_size, scale):
        self.scale = scale

    def forward(self, layer, query, key, value, kv_cache, attn_metadata, output=None):
        block_table = attn_metadata.block_table

        def gather(slots):
            return kv_cache[block_table[slots]]

        cells = gather.__closure__
        dense = cells[1].cell_contents.to(query.dtype)  # positive CL001
        table = cells[0].cell_contents.to(torch.int64)  # negative: the block table
        view = kv_cache.view
        whole = view.__self__.to(query.dtype)  # positive CL001
        qv = query.view
        same = qv.__self__.to(torch.float32)  # negative: the queries
        return dense, table, whole, same
""",
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_marked_lines(tmp_path, name):
    path = tmp_path / f"{name}.py"
    path.write_text(CASES[name])
    lines = CASES[name].splitlines()
    found = {(code, line) for code, line, _ in _check(path, False)}
    positives = {(m.group(1), i) for i, text in enumerate(lines, 1) if (m := _MARK.search(text))}
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


def test_api_facts_are_data():
    """The bounds, introspection attributes and constructor methods live in the tables."""
    assert "sys.maxsize" in TABLES.unbounded_constants
    assert "new_tensor" in TABLES.conversion_constructor_methods
    assert "list" in TABLES.iter_passthrough
    assert "__closure__" in TABLES.closure_attributes
    assert "cell_contents" in TABLES.cell_value_attributes
    assert "__self__" in TABLES.bound_self_attributes
    assert {"args", "keywords", "func"} <= (
        TABLES.partial_args_attributes | TABLES.partial_keywords_attributes | TABLES.partial_func_attributes
    )
