"""Containers, records and whole-keeping ops on unseen shapes (family_recall_10 round, f3 and f5): each
look-alike beside the positives that must stay found, in sglang, vLLM, lmdeploy and TensorRT-LLM styles.
None of these is a file of the corpus.

- *identity-preserving ops* (rules/accessors.toml [views]): `x.as_subclass(T)`, `torch.from_dlpack(x)` and a
  DLPack round-trip keep every slot; `torch.broadcast_tensors(a, b)[i]` is argument i (broadcast_functions);
  `x.__getitem__(k)` is `x[k]` (subscript_methods);
- *the class of a value* ([conversions] class_of_functions, class_of_attributes, attribute_getters):
  `type(x).m(x, ...)`, `x.__class__.m(x)`, `getattr(type(x), "m")(x)` are `x.m(...)`; a static method
  reached as `type(self).make(n)` is not;
- *range indices decided by value* ([index_values] range_functions, [gathers] dim_index_*):
  `buf[torch.arange(a, b)]` and `buf.index_select(0, torch.arange(...))` read the rows `buf[a:b]` does;
- *windows from the step*: `buf[-n:]` and `torch.split(buf, n)[0]` with n the step's ([views] split_*);
- *keys told apart*: tuple keys `d[i, "k"]`, `d[(i, "k")]`, `d.get(key)` of `key = (i, "k")`; a container
  filled by stores of k index parts (`table[i, 0] = kc`) read at k parts or row by row;
- *iterator copies* ([iteration] copies): `a, b = itertools.tee(xs)`.

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
    # -- identity-preserving ops -----------------------------------------------------------------
    "dlpack_subclass_lmdeploy": """
from torch.utils import dlpack

import torch


class SubclassAttention:
    def forward(self, query, key, value, k_cache, v_cache, attn_metadata, k_scales_zeros=None, v_scales_zeros=None):
        plain = v_cache.as_subclass(torch.Tensor)
        a = plain.to(query.dtype)  # positive CL001
        b = dlpack.from_dlpack(dlpack.to_dlpack(k_cache[:, :, :64])).float()  # positive CL001
        c = torch.from_dlpack(attn_metadata.block_offsets).to(torch.int64)  # negative: block offsets
        d = k_cache[attn_metadata.block_offsets].as_subclass(torch.Tensor).half()  # negative: gathered blocks
        return a, b, c, d
""",
    "broadcast_pick_trtllm": """
import torch


class BroadcastAttention:
    def forward(self, q, k, v, attn_metadata):
        mgr = attn_metadata.kv_cache_manager
        buf = mgr.get_buffers(self.layer_idx)
        scale, whole = torch.broadcast_tensors(self.scale, buf)
        a = whole.to(q.dtype)  # positive CL001
        b = torch.broadcast_tensors(q, buf)[1].float()  # positive CL001
        c = torch.broadcast_tensors(q, buf)[0].float()  # negative: the step's queries
        d = scale.to(q.dtype)  # negative: the scale, broadcast
        return a, b, c, d
""",
    "getitem_spelled_vllm": """
import torch


class GetitemImpl:
    def forward(self, layer, query, key, value, kv_cache, attn_metadata, output=None):
        key_cache, value_cache = kv_cache.unbind(0)
        a = torch.Tensor.__getitem__(key_cache, slice(0, None)).to(query.dtype)  # positive CL001
        b = value_cache.__getitem__((slice(None), slice(None), 0)).float()  # positive CL001
        c = key_cache.__getitem__(attn_metadata.slot_mapping).to(query.dtype)  # negative: gathered slots
        d = value_cache.__getitem__(slice(attn_metadata.num_actual_tokens)).half()  # negative: the step's rows
        return a, b, c, d
""",
    # -- the class of a value ----------------------------------------------------------------------
    "class_spellings_vllm": """
import torch


class ClassOfImpl:
    def forward_mqa(self, q, kv_c_and_k_pe_cache, attn_metadata, layer):
        cache = kv_c_and_k_pe_cache
        a = cache.__class__.to(cache, q.dtype)  # positive CL001
        b = getattr(cache.__class__, "bfloat16")(cache)  # positive CL001
        c = type(q).float(q)  # negative: the step's queries
        d = type(cache).to(cache, "cuda")  # negative: a device move
        e = type(cache).to(attn_metadata.block_table, torch.int64)  # negative: another tensor's class
        return a, b, c, d, e
""",
    "class_static_sglang": """
import torch


class LatentBase:
    @staticmethod
    def rows_of(pool, layer_id, loc):
        return pool.get_key_buffer(layer_id)[loc]


class ClassStaticBackend(LatentBase):
    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        pool = forward_batch.token_to_kv_pool
        buf = pool.get_key_buffer(layer.layer_id)
        rows = type(self).rows_of(pool, layer.layer_id, forward_batch.out_cache_loc)
        a = rows.to(q.dtype)  # negative: gathered by the static helper
        b = type(buf).half(buf)  # positive CL001
        return a, b
""",
    # -- range indices ------------------------------------------------------------------------------
    "range_index_trtllm": """
import torch


class RangeIndexAttention:
    def forward(self, q, k, v, attn_metadata):
        buf = attn_metadata.kv_cache_manager.get_buffers(self.layer_idx)
        rows = torch.arange(0, len(buf))
        a = buf[rows].to(q.dtype)  # positive CL001
        b = torch.index_select(buf, 0, torch.arange(buf.shape[0], device=buf.device)).float()  # positive CL001
        c = buf.index_select(1, torch.arange(buf.size(1))).half()  # positive CL001
        n = attn_metadata.num_contexts
        d = buf.index_select(0, torch.arange(n)).to(q.dtype)  # negative: a window of the step
        e = buf[torch.arange(0, len(buf), 2)].float()  # negative: every other row
        f = buf.index_select(0, attn_metadata.slot_ids).half()  # negative: gathered rows
        return a, b, c, d, e, f
""",
    # -- windows from the step ----------------------------------------------------------------------
    "tail_split_sglang": """
import torch


class TailSplitBackend:
    def forward_extend(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        buf = forward_batch.token_to_kv_pool.get_value_buffer(layer.layer_id)
        a = buf[-buf.size(0):].to(q.dtype)  # positive CL001
        b = buf.split(buf.shape[0] // 2)[1].float()  # positive CL001
        c = torch.split(buf, 64, dim=-1)[0].half()  # positive CL001
        last = forward_batch.extend_num_tokens
        d = buf[-last:].to(q.dtype)  # negative: the last rows of the step
        e = buf.split(last)[0].float()  # negative: a piece of the step's size
        f = torch.split(buf, split_size_or_sections=forward_batch.batch_size)[0].half()  # negative: a window
        return a, b, c, d, e, f
""",
    # -- keys told apart ----------------------------------------------------------------------------
    "tuple_keys_vllm": """
import torch


class TupleKeyRunner:
    def __init__(self):
        self.by_key = {}

    def initialize_kv_cache_tensors(self, kv_cache_config):
        for name, cache in zip(kv_cache_config.names, self.kv_caches):
            self.by_key[name, "kv"] = cache
            self.by_key[name, "scale"] = torch.ones(1)

    def execute_model(self, scheduler_output, intermediate_tensors=None):
        name = scheduler_output.first_layer
        a = self.by_key[name, "kv"].to(torch.bfloat16)  # positive CL001
        slot = (name, "kv")
        b = self.by_key.get(slot).float()  # positive CL001
        c = self.by_key[(name, "scale")].to(torch.bfloat16)  # negative: a scale under its own key
        d = self.by_key.get((name, "scale")).half()  # negative: the same scale through get
        return a, b, c, d
""",
    "ranked_table_sglang": """
import torch


class RankedTableBackend:
    def __init__(self, pool):
        self.grid = {}
        for i in range(len(pool.k_buffer)):
            self.grid[i, 0] = pool.k_buffer[i]
            self.grid[i, 1] = pool.v_buffer[i]
        self.meta = {}
        self.meta[0, 0] = torch.zeros(4, dtype=torch.int32)

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        a = self.grid[layer.layer_id, 1].to(q.dtype)  # positive CL001
        b = self.meta[0, 0].to(torch.int64)  # negative: lengths in another table
        c = self.grid[layer.layer_id, 0][forward_batch.out_cache_loc].to(q.dtype)  # negative: gathered rows
        return a, b, c
""",
    # -- iterator copies ----------------------------------------------------------------------------
    "tee_pairs_lmdeploy": """
from itertools import islice, tee

import torch


class TeeAttention:
    def forward(self, query, key, value, attn_metadata, k_scales_zeros=None, v_scales_zeros=None):
        first, rest = tee(iter(self.cache_engine.gpu_cache))
        k0, v0 = next(first)
        a = v0.to(query.dtype)  # positive CL001
        for kc, _ in islice(rest, 1, None):
            b = kc.float()  # positive CL001
        lens, _ = tee(attn_metadata.kv_seqlens)
        c = torch.tensor(next(lens)).to(torch.int64)  # negative: a length
        return a, b, c
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
    """The ops, class spellings, range indices, splits and iterator copies live in the tables."""
    assert "torch.from_dlpack" in TABLES.view_functions
    assert "as_subclass" in TABLES.view_methods
    assert "torch.broadcast_tensors" in TABLES.broadcast_functions
    assert "__getitem__" in TABLES.subscript_methods
    assert "type" in TABLES.class_of_functions
    assert "__class__" in TABLES.class_of_attributes
    assert "torch.arange" in TABLES.range_functions
    assert "index_select" in TABLES.dim_index_methods
    assert "torch.split" in TABLES.split_functions
    assert "itertools.tee" in TABLES.iter_copies


COPY_OF_CAST = """
import torch


class StaticReplay:
    def __init__(self, pool, dtype):
        self.pool, self.dtype = pool, dtype
        self.static = torch.empty(8, 64, 576, dtype=dtype)
        self.raw = torch.empty(8, 64, 576, dtype=torch.float16)

    def replay(self, forward_batch, layer_id):
        buf = self.pool.get_key_buffer(layer_id)
        self.static.copy_(buf.to(self.dtype))  # one finding, at the cast
        up = buf.to(self.dtype)
        self.static.copy_(up)  # a copy of a cast name: none
        self.raw.copy_(buf)  # the copy converts: one finding
        return forward_batch
"""


def test_copy_of_a_cast_is_reported_once(tmp_path):
    """`dst.copy_(pool.to(d))`: the cast converts and is reported; the copy of its result (directly or
    through a name every assignment of which is a cast) converts nothing more. A copy of the raw pool
    into a buffer of another dtype is still a conversion."""
    path = tmp_path / "copy_of_cast.py"
    path.write_text(COPY_OF_CAST)
    lines = COPY_OF_CAST.splitlines()
    found = sorted((line, message) for code, line, message in _check(path, False) if code == "CL001")
    at = {i: text for i, text in enumerate(lines, 1)}
    cast_line = next(i for i, t in at.items() if "one finding, at the cast" in t)
    name_line = next(i for i, t in at.items() if "up = buf.to" in t)
    raw_line = next(i for i, t in at.items() if "the copy converts" in t)
    assert [line for line, _ in found] == [cast_line, name_line, raw_line]
    assert found[0][1].startswith("whole-pool cast")  # the cast's finding, not the copy's
    assert "a copy into a buffer" in found[2][1]
    assert _check(path, True) == _check(path, False)
