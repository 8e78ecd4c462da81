"""Containers, records and whole-keeping ops on unseen shapes (family_recall_11 round, f3 and f5): each
look-alike beside the positives that must stay found, in sglang, vLLM, lmdeploy and TensorRT-LLM styles.
None of these is a file of the corpus.

- *quotient bounds*: a slice bound `n // self.page_size + 1` with n from the step is a window (a quotient is
  no more than its dividend);
- *identity dtype tables*: a cast to `T[x.dtype]` / `T.get(x.dtype, x.dtype)` of a module table every entry
  of which maps a dtype to itself converts nothing ([containers] lookup_methods); one the module stores into
  may not;
- *planes of a convention cache*: `kv_cache[:, -n:]` is a window of the blocks; `torch.narrow(kv_cache, 0, 1, 1)`
  is the V plane of every block;
- *numpy host spellings*: `.numpy()`, `torch.from_numpy`, `numpy.asarray` keep every element, `astype(d)` casts;
- *loop sweeps* ([index_values] stride_ranges, least_functions): `buf[s : s + w]` for s in `range(0, buf.size(0),
  w)` converts every row, chunk by chunk; over `range(0, n, w)` with the step's n, a window;
- *itemgetter(*keys)*: a sequence of the container's elements;
- *make_dataclass records* ([callables] record_factories) and `dataclasses.astuple`;
- *the sequence protocol* ([iteration] protocol_index): iterating or reversing an object whose class defines
  `__getitem__` and no `__iter__` yields what `__getitem__(i)` returns.

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
    # -- quotient bounds ---------------------------------------------------------------------------
    "quotient_bound_vllm": """
import torch


class PagedRefImpl:
    def __init__(self, block_size):
        self.block_size = block_size

    def forward(self, layer, query, key, value, kv_cache, attn_metadata, output=None):
        k_cache = kv_cache[0]
        n_blocks = attn_metadata.max_seq_len // self.block_size + 1
        a = k_cache[:n_blocks].to(query.dtype)  # negative: blocks of the longest sequence
        b = k_cache.to(query.dtype)  # positive CL001
        last = int(attn_metadata.seq_lens.max()) >> 4
        c = kv_cache[1][:last].float()  # negative: a window shifted down from the step's length
        return a, b, c
""",
    # -- identity dtype tables ---------------------------------------------------------------------
    "identity_table_lmdeploy": """
import torch

KEEP = {torch.float16: torch.float16, torch.bfloat16: torch.bfloat16, torch.half: torch.float16}
WIDEN = {torch.int8: torch.float16, torch.uint8: torch.float16}
GROWN = {torch.float16: torch.float16}
GROWN[torch.int8] = torch.float16


class TableAttention:
    def forward(self, query, key, value, k_cache, v_cache, attn_metadata, k_scales_zeros=None, v_scales_zeros=None):
        same = k_cache.to(KEEP[k_cache.dtype])  # negative: every entry maps a dtype to itself
        same2 = v_cache.to(dtype=KEEP.get(v_cache.dtype, v_cache.dtype))  # negative: the same, with the default
        up = k_cache.to(WIDEN[k_cache.dtype])  # positive CL001
        other = v_cache.to(KEEP.get(v_cache.dtype, query.dtype))  # positive CL001
        grown = k_cache.to(GROWN[k_cache.dtype])  # positive CL001
        return same, same2, up, other, grown
""",
    # -- planes of a convention cache --------------------------------------------------------------
    "convention_planes_vllm": """
import torch


class WindowedImpl:
    def forward(self, layer, query, key, value, kv_cache, attn_metadata, output=None):
        used = attn_metadata.num_blocks_in_use
        recent = kv_cache[:, -used:].to(query.dtype)  # negative: the last blocks in use, both planes
        v_all = torch.narrow(kv_cache, 0, 1, 1).squeeze(0).float()  # positive CL001
        k_all = kv_cache.narrow(0, 0, 1).squeeze(0).to(query.dtype)  # positive CL001
        halves = kv_cache[:, 0].half()  # positive CL001
        v_used = torch.narrow(kv_cache, 0, 1, 1)[0][:used].float()  # negative: blocks in use
        return recent, v_all, k_all, halves, v_used
""",
    # -- numpy host spellings ----------------------------------------------------------------------
    "numpy_host_trtllm": """
import numpy as np
import torch


class HostDumpAttention:
    def forward(self, q, k, v, metadata, **kwargs):
        buf = metadata.kv_cache_manager.get_buffers(self.layer_idx)
        host = buf.detach().cpu().numpy()
        a = host.astype("float32")  # positive CL001
        b = np.asarray(buf.cpu()).astype(np.float16)  # positive CL001
        c = torch.from_numpy(host).float()  # positive CL001
        d = buf[metadata.slot_mapping].cpu().numpy().astype(np.float32)  # negative: gathered slots
        e = np.asarray(metadata.kv_lens.cpu()).astype(np.int64)  # negative: lengths
        return a, b, c, d, e
""",
    # -- loop sweeps -------------------------------------------------------------------------------
    "loop_sweep_vllm": """
import torch

STEP = 512


class SweepImpl:
    def forward(self, layer, query, key, value, kv_cache, attn_metadata, output=None):
        k_cache = kv_cache[0]
        out = []
        for start in range(0, k_cache.size(0), STEP):
            out.append(k_cache[start : start + STEP].to(query.dtype))  # positive CL001
        total = k_cache.shape[0]
        for s in range(0, total, 1024):
            out.append(kv_cache[1][s : min(s + 1024, total)].float())  # positive CL001
        n = attn_metadata.num_actual_tokens
        for s in range(0, n, STEP):
            out.append(k_cache[s : s + STEP].to(query.dtype))  # negative: chunks of the step's rows
        for s in range(0, k_cache.size(0), STEP):
            out.append(k_cache[s : s + 16].to(query.dtype))  # negative: 16 rows of each 512
        return out
""",
    # -- itemgetter(*keys) -------------------------------------------------------------------------
    "itemgetter_spread_sglang": """
from operator import itemgetter

import torch


class PickedLayersBackend:
    def __init__(self, model_runner, upcast_layers):
        self.pick = itemgetter(*upcast_layers)
        self.dtype = model_runner.dtype

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        pool = forward_batch.token_to_kv_pool
        dense = [b.to(self.dtype) for b in self.pick(pool.v_buffer)]  # positive CL001
        head = self.pick(pool.k_buffer)[0].float()  # positive CL001
        lens = torch.tensor(self.pick(forward_batch.seq_lens_cpu)).to(torch.int32)  # negative: lengths
        rows = [b[forward_batch.out_cache_loc].to(self.dtype) for b in self.pick(pool.k_buffer)]  # negative: rows
        return dense, head, lens, rows
""",
    # -- make_dataclass records --------------------------------------------------------------------
    "make_dataclass_lmdeploy": """
from dataclasses import astuple, make_dataclass

import torch

Slot = make_dataclass("Slot", ["layer", "kv", "offsets"])


class SlotAttention:
    def forward(self, query, key, value, k_cache, v_cache, attn_metadata, k_scales_zeros=None, v_scales_zeros=None):
        slot = Slot(self.layer_idx, v_cache, attn_metadata.block_offsets)
        a = slot.kv.half()  # positive CL001
        b = slot.offsets.to(torch.int64)  # negative: block offsets
        c = astuple(slot)[1].float()  # positive CL001
        d = astuple(slot)[2].long()  # negative: block offsets
        return a, b, c, d
""",
    # -- the sequence protocol ---------------------------------------------------------------------
    "sequence_protocol_sglang": """
import torch


class ValueLayers:
    def __init__(self, pool, used):
        self._pool, self._used = pool, used

    def __len__(self):
        return self._pool.layer_num

    def __getitem__(self, i):
        return self._pool.get_value_buffer(i)


class UsedRows:
    def __init__(self, pool, used):
        self._pool, self._used = pool, used

    def __getitem__(self, i):
        return self._pool.get_value_buffer(i)[: self._used]


class LengthsFirst:
    def __init__(self, pool, lens):
        self._pool, self._lens = pool, lens

    def __iter__(self):
        return iter(self._lens)

    def __getitem__(self, i):
        return self._pool.get_value_buffer(i)


class ProtocolBackend:
    def forward_extend(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        pool = forward_batch.token_to_kv_pool
        n = forward_batch.extend_num_tokens
        last = [t.float() for t in reversed(ValueLayers(pool, n))][0]  # positive CL001
        for t in ValueLayers(pool, n):
            t.to(q.dtype)  # positive CL001
        used = [t.to(q.dtype) for t in UsedRows(pool, n)]  # negative: rows in use
        lens = [x.to(torch.int32) for x in LengthsFirst(pool, forward_batch.seq_lens)]  # negative: __iter__
        return last, used, lens
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
    """The lookups, numpy spellings, sweeps, record factories and protocols live in the tables."""
    assert "get" in TABLES.lookup_methods
    assert "astype" in TABLES.casts
    assert "numpy" in TABLES.whole_copy_methods
    assert "torch.from_numpy" in TABLES.view_functions
    assert "range" in TABLES.stride_ranges
    assert "min" in TABLES.least_functions
    assert "dataclasses.make_dataclass" in TABLES.record_factories
    assert "__getitem__" in TABLES.index_protocol
