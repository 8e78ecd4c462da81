"""Whole-keeping operations, accessors and containers on unseen shapes (family_recall_7 round):
each look-alike beside the positives that must stay found, in sglang, vLLM, lmdeploy and
TensorRT-LLM styles. None of these is a file of the corpus.

- reorderings, replications and paddings keep every slot (`[views] methods`/`functions`:
  `fliplr`, `rot90`, `roll`, `tile`, `F.pad`, `atleast_2d`, `*_copy`), as do the joins
  `row_stack`/`column_stack` (`concat_functions`), `einops.pack` (`pack_functions`) and the
  one-piece splits `vsplit`/`unsafe_chunk` (`tuple_methods`/`tuple_functions`);
- a dimension moved away from the front (`[views] dim_swaps`, `dim_moves`, `dim_orders`): a
  constant index before it picks a plane of every token, the index at its new place decides;
- `.to(other=t)` / `.type_as(other=t)` (`[[cast]] tensor_keywords`), against `other=` the pool;
- copies into a buffer of another dtype: `buf.copy_(pool)` of another object's buffer, the
  unbound `torch.Tensor.copy_(buf, pool)`, slice stores `buf[:] = pool`; into a buffer of the
  pool's own dtype (known through the module's accessor), or of the step's rows, nothing;
- accessors `get_unified_kv(_rope)` (sglang DSv4) and `get_unique_primary_pool` (TRT-LLM);
- a scales shape bound to a name still has its literal last dimension (`scalar_last_dims`);
- an entry picked from a comprehension over a convention's entries, `itertools.zip_longest`,
  `Rec._make(pair)` (`[records] make_methods`), `popitem(last=...)`;
- a method that only `__init__` (or a setup hook) calls runs once.

A marker `# positive CLxxx` names the code expected on that line. The pruned analysis gives
the whole file's findings."""

from __future__ import annotations

import re

import pytest

from castlint.tables import load_tables
from marked_cases import FILLER
from marked_cases import check as _check

TABLES = load_tables()

CASES = {
    # -- reorderings, joins, paddings ------------------------------------------------------------
    "reorder_join_sglang": """
import torch


class MirrorBackend:
    def __init__(self, model_runner):
        self.token_to_kv_pool = model_runner.token_to_kv_pool
        self.dtype = model_runner.dtype

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        kb, vb = self.token_to_kv_pool.get_kv_buffer(layer.layer_id)
        mirrored = torch.fliplr(kb).float()  # positive CL001
        turned = vb.rot90(1, (1, 2)).to(self.dtype)  # positive CL001
        shifted = torch.roll(kb, shifts=3, dims=0).half()  # positive CL001
        stacked = torch.row_stack([kb.flatten(1), vb.flatten(1)]).bfloat16()  # positive CL001
        loc = forward_batch.out_cache_loc
        rows = torch.fliplr(kb[loc]).float()  # negative: the step's rows
        new = torch.row_stack([k.flatten(1), v.flatten(1)]).float()  # negative: the batch's k/v
        own = torch.fliplr(kb).to(kb.dtype)  # negative: its own dtype
        return mirrored, turned, shifted, stacked, rows, new, own
""",
    "pad_tile_split_vllm": """
import torch
import torch.nn.functional as F


class PaddedImpl:
    def __init__(self, num_heads, head_size, scale):
        self.num_heads = num_heads
        self.head_size = head_size

    def forward(self, layer, query, key, value, kv_cache, attn_metadata, output=None):
        padded = F.pad(kv_cache[0], (0, 8)).float()  # positive CL001
        tiled = torch.tile(kv_cache[1], (1, 1, 2, 1)).half()  # positive CL001
        second = torch.vsplit(kv_cache, 2)[1].to(query.dtype)  # positive CL001
        first = kv_cache.unsafe_chunk(2, 0)[0].float()  # positive CL001
        grown = torch.atleast_2d(kv_cache[1]).bfloat16()  # positive CL001
        q_pad = F.pad(query, (0, 8)).float()  # negative: the batch's query
        blocks = attn_metadata.block_table[0]
        picked = torch.tile(kv_cache[0][blocks], (1, 1, 2, 1)).half()  # negative: the request's blocks
        return padded, tiled, second, first, grown, q_pad, picked
""",
    "pack_and_other_vllm": """
import einops
import torch


class PackImpl:
    def __init__(self, num_heads, head_size, scale):
        self.num_heads = num_heads

    def forward(self, layer, query, key, value, kv_cache, attn_metadata, output=None):
        packed, shapes = einops.pack([kv_cache[0], kv_cache[1]], "nb bs h *")
        dense = packed.half()  # positive CL001
        like_q = kv_cache.to(other=query, non_blocking=True)  # positive CL001
        v_like_q = kv_cache[1].type_as(other=query)  # positive CL001
        step, _ = einops.pack([key, value], "t h *")
        fresh = step.float()  # negative: the batch's k/v
        own = kv_cache.to(other=kv_cache)  # negative: its own dtype
        moved = kv_cache.to(device=query.device)  # negative: device only
        return dense, like_q, v_like_q, fresh, own, moved
""",
    # -- dimension moves ---------------------------------------------------------------------------
    "moved_dims_trtllm": """
import torch


class PlaneAttention:
    def __init__(self, layer_idx, kv_cache_manager):
        self.layer_idx = layer_idx
        self.kv_cache_manager = kv_cache_manager

    def forward(self, q, k, v, metadata):
        buf = self.kv_cache_manager.get_buffers(self.layer_idx)  # [blocks, 2, tpb, heads, dim]
        vals = buf.transpose(0, 1)[1].float()  # positive CL001
        keys = torch.movedim(buf, 1, 0)[0].to(q.dtype)  # positive CL001
        head_major = buf.permute(1, 0, 2, 3, 4)[0, :, :, :2].half()  # positive CL001
        swapped = torch.swapaxes(buf, 0, 3)[0].bfloat16()  # positive CL001
        ids = metadata.block_ids
        used = buf.transpose(0, 1)[:, ids].float()  # negative: the step's blocks
        used_k = torch.movedim(buf, 1, 0)[0, ids].to(q.dtype)  # negative: the step's blocks of K
        first = buf.transpose(1, 2)[0].half()  # negative: one block (the blocks stay first)
        return vals, keys, head_major, swapped, used, used_k, first
""",
    # -- copies into a buffer of another dtype -------------------------------------------------------
    "copy_forms_trtllm": """
import torch


class MirrorManager:
    def __init__(self, num_layers, blocks, tpb, heads, dim):
        shape = (blocks, 2, tpb, heads, dim)
        self.layers = [torch.empty(shape, dtype=torch.float8_e4m3fn, device="cuda") for _ in range(num_layers)]
        self.wide = torch.empty((blocks, 2, tpb, heads, dim), dtype=torch.float32, device="cuda")
        self.raw = torch.empty((blocks, 2, tpb, heads, dim), dtype=torch.float8_e4m3fn, device="cuda")
        self.rows = torch.empty((256, 2, tpb, heads, dim), dtype=torch.float32, device="cuda")

    def layer_pool(self, layer_idx):
        return self.layers[layer_idx]


class MirrorAttention:
    def __init__(self, layer_idx, manager: MirrorManager):
        self.layer_idx = layer_idx
        self.manager = manager

    def forward(self, q, k, v, metadata):
        pool = self.manager.layer_pool(self.layer_idx)
        self.manager.wide.copy_(pool)  # positive CL001
        torch.Tensor.copy_(self.manager.wide, self.manager.layer_pool(0))  # positive CL001
        self.manager.wide[...] = pool  # positive CL001
        self.manager.wide[:, 1] = pool[:, 1]  # positive CL001
        self.manager.raw.copy_(pool)  # negative: the pool's own dtype
        self.manager.raw[:] = pool  # negative: the pool's own dtype
        n = metadata.num_blocks
        self.manager.rows[:n] = pool[metadata.block_ids]  # negative: the step's blocks
        self.manager.rows[:n].copy_(pool[metadata.block_ids])  # negative: the step's blocks
        return self.manager.wide
""",
    "copy_slice_lmdeploy": """
import torch


class StagingImpl:
    def __init__(self, num_blocks, block_size, heads, dim):
        self.k_stage = torch.empty((num_blocks, block_size, heads, dim), dtype=torch.float16, device="cuda")

    def forward(self, query, key, value, k_cache, v_cache, attn_metadata, k_scales_zeros=None, v_scales_zeros=None):
        self.k_stage[:] = k_cache  # positive CL001
        torch.Tensor.copy_(self.k_stage, v_cache)  # positive CL001
        offsets = attn_metadata.block_offsets
        self.k_stage[: offsets.numel()] = k_cache[offsets[0]]  # negative: one request's blocks
        return self.k_stage
""",
    # -- accessors ---------------------------------------------------------------------------------
    "unified_and_primary_accessors": """
import torch


class UnifiedBackend:
    def __init__(self, model_runner):
        self.token_to_kv_pool = model_runner.token_to_kv_pool
        self.dtype = model_runner.dtype

    def forward_extend(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        pool = self.token_to_kv_pool
        kv = pool.get_unified_kv(layer.layer_id).to(self.dtype)  # positive CL001
        rope = pool.get_unified_kv_rope(layer.layer_id).float()  # positive CL001
        loc = forward_batch.out_cache_loc
        rows = pool.get_unified_kv(layer.layer_id)[loc].to(self.dtype)  # negative: the step's rows
        return kv, rope, rows


class PrimaryAttention:
    def __init__(self, layer_idx):
        self.layer_idx = layer_idx

    def forward(self, q, k, v, metadata):
        manager = metadata.kv_cache_manager
        every = manager.get_unique_primary_pool().half()  # positive CL001
        blocks = manager.get_unique_primary_pool()[metadata.block_ids].half()  # negative: the step's blocks
        other = metadata.scratch.get_unique_primary_pool().half()  # negative: not a KV cache manager
        return every, blocks, other
""",
    "named_scale_shape_lmdeploy": """
import torch


class ScaledCacheEngine:
    def __init__(self, num_layers, num_blocks, block_size, heads, dim):
        kv_shape = (num_blocks, block_size, heads, dim)
        scale_shape = (num_blocks, block_size, heads, 1)
        self.k_caches = [torch.empty(kv_shape, dtype=torch.int8, device="cuda") for _ in range(num_layers)]
        self.k_scales = [torch.ones(scale_shape, dtype=torch.float16, device="cuda") for _ in range(num_layers)]

    def get_key_cache(self, layer):
        return self.k_caches[layer].half() * self.k_scales[layer]  # positive CL004

    def get_key_scales(self, layer):
        return self.k_scales[layer].float()  # negative: per-token scales, not KV
""",
    # -- containers ----------------------------------------------------------------------------------
    "entry_by_comprehension_lmdeploy": """
import torch


class EntryAttention:
    def __init__(self, cache_engine, layer_idx):
        self.cache_engine = cache_engine
        self.layer_idx = layer_idx

    def forward(self, query, key, value, attn_metadata):
        entries = [kv for i, kv in enumerate(self.cache_engine.gpu_cache) if i >= self.layer_idx]
        head = entries[0]
        v_all = head[1].half()  # positive CL001
        k_all = [kv for kv in self.cache_engine.gpu_cache][self.layer_idx][0].float()  # positive CL001
        some = head[1][attn_metadata.block_offsets[0]].half()  # negative: one request's blocks
        return v_all, k_all, some
""",
    "zip_longest_connector_vllm": """
import itertools

import torch


class LongestConnector:
    def __init__(self, vllm_config, role):
        self.names = []
        self.caches = []

    def register_kv_caches(self, kv_caches):
        self.names = list(kv_caches)
        self.caches = list(kv_caches.values())

    def wait_for_save(self):
        for name, cache in itertools.zip_longest(self.names, self.caches):
            self._send(name, cache.to(torch.bfloat16))  # positive CL001

    def start_load_kv(self, forward_context, **kwargs):
        slots = forward_context.slot_mapping
        for name, cache in itertools.zip_longest(self.names, self.caches):
            self._send(name, cache.flatten(1, 2)[:, slots].half())  # negative: the step's slots
        for tag, size in itertools.zip_longest(self.names, [3, 4]):
            self._send(tag, torch.tensor(size).float())  # negative: no cache

    def _send(self, *items):
        pass
""",
    "record_make_trtllm": """
from typing import NamedTuple

import torch


class Halves(NamedTuple):
    k: torch.Tensor
    v: torch.Tensor


class HalvesAttention:
    def __init__(self, layer_idx, kv_cache_manager):
        self.layer_idx = layer_idx
        self.kv_cache_manager = kv_cache_manager

    def forward(self, q, k, v, metadata):
        buf = self.kv_cache_manager.get_buffers(self.layer_idx)
        halves = Halves._make(buf.unbind(1))
        keys = halves.k.to(q.dtype)  # positive CL001
        vals = halves._asdict()["v"].half()  # positive CL001
        ids = metadata.block_ids
        step = Halves._make((buf[ids, 0], buf[ids, 1]))
        step_k = step.k.to(q.dtype)  # negative: the step's blocks
        return keys, vals, step_k
""",
    "popitem_keyword_lmdeploy": """
from collections import OrderedDict

import torch


class LruCacheEngine:
    def __init__(self, num_layers, num_blocks, block_size, heads, dim):
        self.entries = OrderedDict()
        for layer in range(num_layers):
            self.entries[layer] = (
                torch.empty((num_blocks, block_size, heads, dim), dtype=torch.int8, device="cuda"),
                torch.empty((num_blocks, block_size, heads, dim), dtype=torch.int8, device="cuda"),
            )
        self.offsets = OrderedDict()


class LruAttention:
    def __init__(self, engine: LruCacheEngine, layer_idx):
        self.engine = engine
        self.layer_idx = layer_idx

    def forward(self, query, key, value, attn_metadata):
        _, (k_old, v_old) = self.engine.entries.popitem(last=False)
        oldest = k_old.float()  # positive CL001
        self.engine.offsets[self.layer_idx] = attn_metadata.block_offsets
        _, table = self.engine.offsets.popitem(last=False)
        ids = table.long()  # negative: block offsets
        return oldest, ids
""",
    # -- run once ------------------------------------------------------------------------------------
    "once_helpers_vllm": """
import torch


class OnceWorker:
    def __init__(self, vllm_config, num_blocks, num_layers):
        self.kv_caches = [
            torch.empty((2, num_blocks, 16, 8, 128), dtype=torch.float8_e4m3fn) for _ in range(num_layers)
        ]
        self.dtype = torch.bfloat16
        self._prewarm()
        self._shared()

    def _prewarm(self):
        self.warm = [c.to(self.dtype) for c in self.kv_caches]  # negative: only __init__ calls it

    def initialize_cache(self, num_gpu_blocks, num_cpu_blocks):
        self.first = self.kv_caches[0].float()  # negative: a setup hook

    def _shared(self):
        return self.kv_caches[1].half()  # positive CL001

    def execute_model(self, scheduler_output):
        dense = [c.to(self.dtype) for c in self.kv_caches]  # positive CL001
        return dense, self._shared()
""",
}

_MARK = re.compile(r"# positive (CL\d{3})")


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
    """The ops, keywords and accessors live in the tables, not in the analysis."""
    assert {"fliplr", "rot90", "roll", "tile"} <= TABLES.view_methods
    assert {"torch.nn.functional.pad", "torch.atleast_2d", "torch.flip"} <= TABLES.view_functions
    assert {"torch.row_stack", "torch.column_stack"} <= TABLES.concat_functions
    assert "einops.pack" in TABLES.pack_functions
    assert {"movedim", "torch.moveaxis"} <= TABLES.dim_moves
    assert "other" in TABLES.casts["to"].tensor_keywords
    assert {"get_unified_kv", "get_unique_primary_pool"} <= set(TABLES.accessors)
    assert "_make" in TABLES.record_make_methods
    assert "itertools.zip_longest" in TABLES.iter_pairs
    assert "initialize_cache" in TABLES.run_once_methods
