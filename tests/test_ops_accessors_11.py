"""Whole-keeping ops, conversion spellings and engine accessors on unseen shapes (family_recall_9
round): each look-alike beside the positives that must stay found, in sglang, vLLM, lmdeploy and
TensorRT-LLM styles. None of these is a file of the corpus.

- integer and bool conversions (`.int()`, `.short()`, `.long()`, `.char()`, `.byte()`, `.bool()`:
  rules/casts.toml) of a packed cache widen every slot; an elementwise op between two casts keeps
  one chain (`(pool.int() & 0xF).to(d)` is one finding);
- ops of an operator namespace (`[conversions] op_namespaces`: `torch.ops.aten.<op>[.<overload>]`,
  `torch.ops.prims`) are the unbound method of their first argument: `_to_copy`,
  `to.dtype`, `convert_element_type` convert, `permute.default` is a view, `view.dtype` a
  reinterpret, `index_select` a gather; under `from torch.ops import aten` and `aten =
  torch.ops.aten` too;
- `torch.tensor(pool, dtype=d)` converts (`[conversions] constructors`); its data written out
  (`torch.tensor([0, n], dtype=d)`) is no pool's;
- full-extent indexes written with `None` or the empty tuple (`[()]`, `[0:None]`, `[:None]`,
  `[None:None:None]`) keep every slot; `[None:n]` is the step's window;
- elementwise ops (`[views] elementwise_methods`/`elementwise_functions`: masked_fill, clamp,
  nan_to_num, abs, bitwise ops...) and `torch.where(c, x, y)` (`choose_functions`) keep every slot;
- einsum with one operand and a permuted output (`[views] einsum_functions`) is a permute (a
  contraction or a reduction is not); `unfold(dim, size, step)` (`window_methods`) keeps every
  token along a later dimension or when its windows skip none;
- `narrow_copy` over the full extent keeps every slot, over the step's count it is a window;
- engines' cache splitters by their last name (`split_kv_cache`, `_unpack_paged_kv_cache`) give
  whole planes; TensorRT-LLM's `impl.get_primary_pool_data(layer)` is the layer's pool;
- CL004 in a subclass of an engine's manager or pool: a method that converts what an accessor
  it inherits returns (`raw = self.get_buffers(layer_idx)`; `return raw.to(d)`) is an accessor.

A marker `# positive CLxxx` names the code expected on that line. The pruned analysis gives
the whole file's findings."""

from __future__ import annotations

import re

import pytest

from castlint.tables import load_tables
from marked_cases import FILLER
from marked_cases import check as _check

TABLES = load_tables()
_MARK = re.compile(r"# positive (CL\d{3})")

CASES = {
    # -- integer and bool conversions ------------------------------------------------------------
    "int_widen_lmdeploy": """
import torch


class Int4UnpackAttention:
    def __init__(self, quant_policy=4):
        self.quant_policy = quant_policy
        self.lut = torch.arange(16).int()

    def forward(self, query, key, value, k_cache, v_cache, attn_metadata, k_scales_zeros=None, v_scales_zeros=None):
        hi = ((k_cache.int() >> 4) & 0xF).to(query.dtype)  # positive CL001
        lo = v_cache.long()  # positive CL001
        wide = torch.Tensor.short(k_cache)  # positive CL001
        sz = k_scales_zeros.int()  # negative: scales/zeros
        offs = attn_metadata.block_offsets.int()  # negative: block offsets
        rows = k_cache[attn_metadata.block_offsets[0]].int()  # negative: gathered blocks
        same = k_cache.view(torch.int8)  # negative: reinterpret
        return hi, lo, wide, sz, offs, rows, same
""",
    "int_widen_sglang": """
import torch


class PackedReadBackend:
    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        kb = forward_batch.token_to_kv_pool.get_key_buffer(layer.layer_id)
        a = kb.char().to(q.dtype)  # positive CL001
        b = kb.byte()  # positive CL001
        c = kb.to(torch.long)  # positive CL001
        d = kb.bool()  # positive CL001
        e = forward_batch.seq_lens.int()  # negative: lengths
        f = kb[forward_batch.out_cache_loc].int()  # negative: gathered rows
        g = forward_batch.req_pool_indices.long()  # negative: indices
        return a, b, c, d, e, f, g
""",
    "int_pool_own_dtype_trtllm": """
import torch


class Int32MirrorPool:
    def __init__(self, num_layers, num_blocks, block_size, heads, dim):
        shape = (num_blocks, block_size, heads, dim)
        self.k_buffer = [torch.zeros(shape, dtype=torch.int32) for _ in range(num_layers)]

    def forward(self, q, layer_idx):
        same = self.k_buffer[layer_idx].int()  # negative: already int32
        wide = self.k_buffer[layer_idx].long()  # positive CL001
        return same, wide
""",
    # -- operator namespaces -------------------------------------------------------------------------
    "aten_ops_trtllm": """
import torch


class AtenReadAttention:
    def __init__(self, layer_idx):
        self.layer_idx = layer_idx

    def forward(self, q, k, v, metadata):
        buf = metadata.kv_cache_manager.get_buffers(self.layer_idx)
        a = torch.ops.aten.to.dtype(buf, torch.bfloat16)  # positive CL001
        b = torch.ops.aten.permute.default(buf, [1, 0, 2, 3, 4]).float()  # positive CL001
        c = torch.ops.prims.convert_element_type.default(buf[:, 0], q.dtype)  # positive CL001
        d = torch.ops.aten.index_select.default(buf, 0, metadata.block_ids).float()  # negative: gathered blocks
        e = torch.ops.aten._to_copy(buf, device="cpu", non_blocking=True)  # negative: a move
        f = torch.ops.aten._to_copy.default(q, dtype=torch.float32)  # negative: the batch's queries
        g = torch.ops.aten.view.dtype(buf, torch.int8)  # negative: reinterpret
        return a, b, c, d, e, f, g
""",
    "aten_alias_sglang": """
import torch

aten = torch.ops.aten


class AliasedAtenBackend:
    def forward_extend(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        pool = forward_batch.token_to_kv_pool
        kb = pool.get_key_buffer(layer.layer_id)
        vb = pool.get_value_buffer(layer.layer_id)
        a = aten._to_copy.default(kb, dtype=q.dtype)  # positive CL001
        c = aten.clone.default(vb).half()  # positive CL001
        d = aten._to_copy(kb[forward_batch.out_cache_loc], dtype=q.dtype)  # negative: gathered rows
        e = aten.slice.Tensor(kb, 0, 0, forward_batch.extend_num_tokens)  # negative: no conversion
        return a, c, d, e
""",
    "aten_import_vllm": """
import torch
from torch.ops import aten


class ImportedAtenImpl:
    def forward(self, layer, query, key, value, kv_cache, attn_metadata, output=None):
        a = aten._to_copy(kv_cache[1], dtype=torch.bfloat16)  # positive CL001
        b = aten.transpose.int(kv_cache, 0, 1).to(query.dtype)  # positive CL001
        c = aten._to_copy.default(key, dtype=query.dtype)  # negative: the step's keys
        return a, b, c
""",
    # -- constructors ---------------------------------------------------------------------------------
    "tensor_ctor_vllm": """
import torch


class CtorImpl:
    def forward(self, layer, query, key, value, kv_cache, attn_metadata, output=None):
        a = torch.tensor(kv_cache[0], dtype=query.dtype)  # positive CL001
        b = torch.tensor(kv_cache, dtype=torch.float16, device=kv_cache.device)  # positive CL001
        n = attn_metadata.num_actual_tokens
        c = torch.tensor([0, n], dtype=torch.int32)  # negative: written data
        d = torch.tensor(attn_metadata.seq_lens, dtype=torch.int32)  # negative: lengths
        e = torch.tensor(kv_cache[1])  # negative: a copy in its own dtype
        f = torch.tensor([x.data_ptr() for x in (kv_cache,)], dtype=torch.uint64)  # negative: pointers
        return a, b, c, d, e, f
""",
    # -- full extents written with None or the empty tuple --------------------------------------------
    "none_extents_sglang": """
import torch


class NoneExtentBackend:
    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        kb = forward_batch.token_to_kv_pool.get_key_buffer(layer.layer_id)
        a = kb[()].float()  # positive CL001
        b = kb[:None].to(q.dtype)  # positive CL001
        c = kb[None:None:None, :, :512].half()  # positive CL001
        n = forward_batch.batch_size
        d = kb[None:n].float()  # negative: the step's rows
        e = kb[0:n:None].float()  # negative: the step's rows
        f = kb[(forward_batch.out_cache_loc,)].float()  # negative: gathered rows
        return a, b, c, d, e, f
""",
    "none_extents_lmdeploy": """
import torch


class NoneExtentAttention:
    def forward(self, query, key, value, k_cache, v_cache, attn_metadata, k_scales_zeros=None, v_scales_zeros=None):
        a = k_cache[0:None].to(query.dtype)  # positive CL001
        b = v_cache[()][..., :64].float()  # positive CL001
        c = k_cache[0 : attn_metadata.max_kv_seqlen].float()  # negative: bounded by the step
        d = k_scales_zeros[()].float()  # negative: scales/zeros
        return a, b, c, d
""",
    # -- elementwise ops -------------------------------------------------------------------------------
    "elementwise_sglang": """
import torch


class ScrubBackend:
    def forward_extend(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        pool = forward_batch.token_to_kv_pool
        kb = pool.get_key_buffer(layer.layer_id)
        vb = pool.get_value_buffer(layer.layer_id)
        a = torch.nan_to_num(kb, nan=0.0).to(q.dtype)  # positive CL001
        b = vb.abs().clamp_max(448.0).float()  # positive CL001
        c = torch.clamp(vb, -448.0, 448.0).half()  # positive CL001
        d = torch.where(torch.isnan(kb), 0.0, kb).to(q.dtype)  # positive CL001
        loc = forward_batch.out_cache_loc
        e = torch.clamp(kb[loc], -448.0, 448.0).to(q.dtype)  # negative: gathered rows
        f = torch.where(forward_batch.seq_lens > 0, q, 0.0).float()  # negative: the batch's queries
        g = k.masked_fill(k != k, 0).to(q.dtype)  # negative: the step's keys
        h = vb.clamp(-448.0, 448.0)  # negative: no conversion
        return a, b, c, d, e, f, g, h
""",
    "elementwise_vllm": """
import torch


class MaskedImpl:
    def forward(self, layer, query, key, value, kv_cache, attn_metadata, output=None):
        key_cache, value_cache = kv_cache.unbind(0)
        a = key_cache.masked_fill(key_cache.isnan(), 0.0).to(query.dtype)  # positive CL001
        b = (value_cache.float().neg() * 2).half()  # positive CL001
        c = torch.bitwise_and(value_cache.view(torch.uint8), 0x7F).to(torch.int32)  # positive CL001
        d = layer._k_scale.clamp(min=1e-6).float()  # negative: scale
        e = torch.where(attn_metadata.slot_mapping >= 0, attn_metadata.slot_mapping, 0).long()  # negative: slots
        f = (-key_cache).float()  # positive CL001
        g = abs(value_cache).to(query.dtype)  # positive CL001
        h = value_cache.to(query.device, non_blocking=True).half()  # positive CL001
        i = (-key).float()  # negative: the step's keys
        j = abs(layer._v_scale).float()  # negative: scale
        return a, b, c, d, e, f, g, h, i, j
""",
    # -- einsum and unfold ------------------------------------------------------------------------------
    "einsum_unfold_sglang": """
import einops
import torch


class LayoutBackend:
    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        kv = forward_batch.token_to_kv_pool.get_key_buffer(layer.layer_id)
        a = torch.einsum("thd->hdt", kv).float()  # positive CL001
        b = torch.einsum("...hd->...dh", [kv]).to(q.dtype)  # positive CL001
        c = einops.einsum(kv, "tok head dim -> head tok dim").half()  # positive CL001
        d = torch.einsum("thd->htd", kv)[0].float()  # positive CL001
        e = kv.unfold(0, 1, 1).to(q.dtype)  # positive CL001
        f = kv.unfold(-1, 64, 64).float()  # positive CL001
        g = torch.einsum("thd,hd->th", kv, q[0]).float()  # negative: a contraction
        h = torch.einsum("thd->td", kv).float()  # negative: a reduction
        i = torch.einsum("thd->htd", kv)[:, forward_batch.out_cache_loc].float()  # negative: gathered rows
        j = kv.unfold(0, 2, 4).float()  # negative: every other pair of slots
        m = torch.einsum("thd->htd", q).float()  # negative: the batch's queries
        return a, b, c, d, e, f, g, h, i, j, m
""",
    "einsum_page_trtllm": """
import torch


class PageLayoutAttention:
    def __init__(self, layer_idx, page):
        self.layer_idx = layer_idx
        self.page = page

    def forward(self, q, k, v, metadata):
        buf = metadata.kv_cache_manager.get_buffers(self.layer_idx)
        a = torch.einsum("bkthd->kbhtd", buf).to(q.dtype)  # positive CL001
        b = buf.unfold(0, self.page, self.page).half()  # positive CL001
        c = torch.einsum("bkthd->kbhtd", buf[metadata.block_ids]).to(q.dtype)  # negative: gathered blocks
        return a, b, c
""",
    # -- narrow_copy and split copies -------------------------------------------------------------------
    "narrow_copy_lmdeploy": """
import torch


class NarrowCopyAttention:
    def forward(self, query, key, value, k_cache, v_cache, attn_metadata, k_scales_zeros=None, v_scales_zeros=None):
        a = k_cache.narrow_copy(0, 0, k_cache.size(0)).to(query.dtype)  # positive CL001
        b = torch.narrow_copy(v_cache, -1, 0, 64).float()  # positive CL001
        c = torch.split_with_sizes_copy(v_cache, [64, 64], -1)[1].half()  # positive CL001
        n = attn_metadata.max_kv_seqlen
        d = k_cache.narrow_copy(0, 0, n).to(query.dtype)  # negative: the step's window
        e = torch.narrow_copy(key, 0, 0, 4).float()  # negative: the step's keys
        return a, b, c, d, e
""",
    # -- engines' cache splitters and pool data ------------------------------------------------------------
    "split_kv_cache_vllm": """
import torch
from vllm.attention.ops.paged_attn import PagedAttention


class SplitPlanesImpl:
    def __init__(self, num_kv_heads, head_size):
        self.num_kv_heads = num_kv_heads
        self.head_size = head_size
        self.paged_attn_impl = PagedAttention

    def forward(self, layer, query, key, value, kv_cache, attn_metadata, output=None):
        k_cache, v_cache = self.paged_attn_impl.split_kv_cache(kv_cache, self.num_kv_heads, self.head_size)
        planes = PagedAttention.split_kv_cache(kv_cache, self.num_kv_heads, self.head_size)
        a = k_cache.to(query.dtype)  # positive CL001
        b = planes[1].half()  # positive CL001
        k_plane = torch.select(kv_cache, 0, 0).float()  # positive CL001
        v_plane = torch.ops.aten.select.int(kv_cache, 0, 1).to(query.dtype)  # positive CL001
        block = torch.select(kv_cache, 1, attn_metadata.block_tables[0, 0]).float()  # negative: one block
        c = v_cache[attn_metadata.block_tables[0]].float()  # negative: gathered blocks
        d = attn_metadata.block_tables.int()  # negative: block tables
        return a, b, c, d, k_plane, v_plane, block
""",
    "unpack_paged_flashinfer_sglang": """
import torch
from flashinfer.utils import _unpack_paged_kv_cache


class UnpackBackend:
    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        paged = forward_batch.token_to_kv_pool.get_kv_buffer(layer.layer_id)
        k_cache, v_cache = _unpack_paged_kv_cache(paged, "NHD")
        a = v_cache.to(q.dtype)  # positive CL001
        b = k_cache[forward_batch.out_cache_loc].float()  # negative: gathered rows
        return a, b
""",
    "primary_pool_data_trtllm": """
import torch


class PoolDataReader:
    def __init__(self, layer_idx):
        self.layer_idx = layer_idx

    def forward(self, q, k, v, metadata):
        impl = metadata.kv_cache_manager.impl
        data = impl.get_primary_pool_data(metadata.kv_cache_manager.layer_offsets[self.layer_idx])
        a = data.to(q.dtype)  # positive CL001
        b = data[:, 1].float()  # positive CL001
        mgr = metadata.kv_cache_manager
        hnd = mgr.get_buffers(self.layer_idx, kv_layout="HND").half()  # positive CL001
        ids = metadata.kv_cache_manager.get_batch_cache_indices(metadata.request_ids)
        c = torch.tensor(ids, dtype=torch.int32)  # negative: cache indices
        d = data[metadata.block_ids].to(q.dtype)  # negative: gathered blocks
        idx_k = mgr.get_indexer_k_cache_buffers(self.layer_idx)
        e = idx_k.float()  # positive CL001
        f = idx_k.view(-1)[metadata.slot_mapping].float()  # negative: the step's slots
        g = idx_k.view(torch.uint8)  # negative: reinterpret
        return a, b, c, d, hnd, e, f, g
""",
    # -- what the ops give, handed to helpers (the pruner follows them too) -------------------------------
    "through_helpers_sglang": """
import torch

aten = torch.ops.aten


class HelperBackend:
    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        kb = forward_batch.token_to_kv_pool.get_key_buffer(layer.layer_id)
        self._permuted(aten.permute.default(kb, [1, 0, 2]), q)
        self._summed(torch.einsum("thd->dht", kb), q)
        self._windows(kb.unfold(0, 1, 1), q)
        self._chosen(torch.where(kb != kb, 0.0, kb), q)
        self._itself(kb[()], q)
        self._negated(-kb, q)
        self._rows(kb[forward_batch.out_cache_loc], q)
        self._contracted(torch.einsum("thd,hd->th", kb, q[0]), q)
        return q

    def _permuted(self, t, q):
        return t.to(q.dtype)  # positive CL001

    def _summed(self, t, q):
        return t.to(q.dtype)  # positive CL001

    def _windows(self, t, q):
        return t.to(q.dtype)  # positive CL001

    def _chosen(self, t, q):
        return t.to(q.dtype)  # positive CL001

    def _itself(self, t, q):
        return t.to(q.dtype)  # positive CL001

    def _negated(self, t, q):
        return t.to(q.dtype)  # positive CL001

    def _rows(self, t, q):
        return t.to(q.dtype)  # negative: gathered rows

    def _contracted(self, t, q):
        return t.to(q.dtype)  # negative: a contraction
""",
    "through_helpers_vllm": """
import torch
from vllm.attention.ops.paged_attn import PagedAttention


def _widen(plane):
    return plane.int()  # positive CL001


def _copied(plane):
    return plane.half()  # positive CL001


def _scale(s):
    return s.float()  # negative: scales


class HelperImpl:
    def __init__(self, num_kv_heads, head_size):
        self.num_kv_heads = num_kv_heads
        self.head_size = head_size

    def forward(self, layer, query, key, value, kv_cache, attn_metadata, output=None):
        key_cache, value_cache = PagedAttention.split_kv_cache(kv_cache, self.num_kv_heads, self.head_size)
        a = _widen(torch.clamp(key_cache, -8, 7))
        b = _copied(value_cache.narrow_copy(-1, 0, 64))
        c = _scale(layer._k_scale)
        return a, b, c
""",
    # -- CL004 in subclasses of an engine's manager or pool ------------------------------------------------
    "cl004_manager_subclass_trtllm": """
import torch
from tensorrt_llm._torch.pyexecutor.resource_manager import KVCacheManager


class HalfViewKVCacheManager(KVCacheManager):
    def get_half_buffers(self, layer_idx):
        raw = self.get_buffers(layer_idx)
        dense = raw.half()  # positive CL004
        return dense

    def get_rows(self, layer_idx, block_ids):
        raw = self.get_buffers(layer_idx)
        return raw[block_ids].half()  # negative: gathered blocks

    def get_hnd_buffers(self, layer_idx):
        return self.get_buffers(layer_idx, kv_layout="HND").to(torch.bfloat16)  # positive CL004

    def get_first(self, layer_idx):
        raw = self.get_buffers(0)
        return raw


class HalfReader:
    def __init__(self, layer_idx):
        self.layer_idx = layer_idx

    def forward(self, q, k, v, metadata):
        mgr = metadata.kv_cache_manager
        dense = mgr.get_half_buffers(self.layer_idx)
        rows = mgr.get_rows(self.layer_idx, metadata.block_ids)
        return dense, rows
""",
    "cl004_pool_subclass_sglang": """
import torch
from sglang.srt.mem_cache.memory_pool import MHATokenToKVPool


class UpcastMHAPool(MHATokenToKVPool):
    def get_value_dense(self, layer_id):
        v = self.get_value_buffer(layer_id)
        return v.to(torch.float32)  # positive CL004

    def get_value_rows(self, layer_id, loc):
        v = self.get_value_buffer(layer_id)
        return v[loc].to(torch.float32)  # negative: gathered rows

    def get_value_same(self, layer_id):
        # (get_value_buffer returns the pool's self.dtype view: rules/accessors.toml `dtype`)
        return self.get_value_buffer(layer_id).to(self.dtype)  # negative: its own dtype


class DenseBackend:
    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        pool = forward_batch.token_to_kv_pool
        dense = pool.get_value_dense(layer.layer_id)
        rows = pool.get_value_rows(layer.layer_id, forward_batch.out_cache_loc)
        return dense, rows
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
    assert len(found) == len({line for _, line in found})  # one finding a line: a chain is one


@pytest.mark.parametrize("name", sorted(CASES))
@pytest.mark.parametrize("filler", [False, True], ids=["as-is", "with-filler"])
def test_pruned_is_whole(tmp_path, name, filler):
    path = tmp_path / f"{name}.py"
    path.write_text(CASES[name] + (FILLER if filler else ""))
    assert _check(path, True) == _check(path, False)


def test_api_facts_are_data():
    """The spellings, ops, namespaces and accessors live in the tables, not in the analysis."""
    assert {"int", "short", "long", "char", "byte", "bool", "_to_copy", "convert_element_type"} <= set(TABLES.casts)
    assert {"torch.ops.aten", "torch.ops.prims"} <= TABLES.op_namespaces
    assert "torch.tensor" in TABLES.conversion_constructors
    assert {"masked_fill", "clamp", "nan_to_num"} <= TABLES.elementwise_methods
    assert {"torch.clamp", "torch.nan_to_num"} <= TABLES.elementwise_functions
    assert "torch.where" in TABLES.choose_functions
    assert "unfold" in TABLES.window_methods and "torch.einsum" in TABLES.einsum_functions
    assert {"narrow_copy"} <= TABLES.narrow_methods and "torch.narrow_copy" in TABLES.narrow_functions
    assert {"split_kv_cache", "_unpack_paged_kv_cache"} <= TABLES.tuple_view_functions
    assert {"get_primary_pool_data", "get_indexer_k_cache_buffers"} <= set(TABLES.accessors)
    assert {"torch.select", "torch.select_copy"} <= TABLES.select_functions
