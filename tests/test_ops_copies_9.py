"""Whole-keeping ops and copies on unseen shapes (family_recall_8 round): each look-alike beside
the positives that must stay found, in sglang, vLLM, lmdeploy and TensorRT-LLM styles. None of
these is a file of the corpus.

- an index by an explicit slice object is the slice it spells (`[views] slice_constructors`):
  `buf[slice(None)]`, `buf[slice(None, None)]`, `buf[slice(0, buf.shape[0])]` keep every slot,
  `buf[slice(0, n)]` of the step's n and `buf[slice(None, None, 2)]` do not;
- a one-plane constant slice of a (2, num_blocks, ...) cache (`kv_cache[:1]`, `kv_cache[1:2]`)
  is a plane of every block, as `kv_cache[0]` is;
- `narrow(0, 0, n)` with n read from the step is a window, as `[:n]` is;
- tensor constructors given a dtype (`[conversions] constructors`: `torch.asarray`, and the
  `constructor_methods` `t.new_tensor(pool, dtype=d)`) convert every slot; in a setup hook
  (`register_kv_caches`) they run once;
- `dst.copy_(pool)` where dst is an element of a container (a dict or list built by a
  comprehension, filled by keyed stores, a for target over `.items()`) whose values are all
  converted (`t.to(torch.float16)`, `.half()`) or allocated with another dtype; a host mirror
  (`device="cpu"`, `pin_memory=True`: `[conversions] host_devices`, `host_flags`) keeps the
  pool's dtype.

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
    # -- explicit slice objects ----------------------------------------------------------------
    "slice_objects_sglang": """
import torch


class SliceObjectBackend:
    def __init__(self, model_runner):
        self.token_to_kv_pool = model_runner.token_to_kv_pool

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        kb = self.token_to_kv_pool.get_key_buffer(layer.layer_id)
        a = kb[slice(None)].to(q.dtype)  # positive CL001
        b = kb[slice(None, None), :].float()  # positive CL001
        c = kb[slice(0, kb.shape[0])].half()  # positive CL001
        n = forward_batch.num_tokens
        d = kb[slice(0, n)].float()  # negative: the step's tokens
        e = kb[slice(None, None, 2)].float()  # negative: every other slot
        f = kb[slice(n)].half()  # negative: the first n slots
        return a, b, c, d, e, f
""",
    "slice_objects_lmdeploy": """
import torch


class SliceObjectAttention:
    def forward(self, query, key, value, k_cache, v_cache, attn_metadata, k_scales_zeros=None, v_scales_zeros=None):
        full = slice(None)
        a = v_cache[slice(None), ..., :64].to(query.dtype)  # positive CL001
        b = k_cache[None, slice(None, None)].float()  # positive CL001
        c = k_cache[slice(0, attn_metadata.max_kv_seqlen)].float()  # negative: bounded by the step
        d = k_scales_zeros[slice(None)].float()  # negative: scales/zeros
        return a, b, c, d, full
""",
    # -- one plane of a (2, num_blocks, ...) cache ---------------------------------------------
    "one_plane_slice_vllm": """
import torch


class PlaneSliceImpl:
    def forward(self, layer, query, key, value, kv_cache, attn_metadata, output=None):
        k_plane = kv_cache[:1].squeeze(0).to(query.dtype)  # positive CL001
        v_plane = torch.squeeze(kv_cache[1:2], 0).float()  # positive CL001
        rows = kv_cache[:1, attn_metadata.block_table[0]].float()  # negative: the request's blocks
        first_q = query[:1].float()  # negative: the batch's query
        return k_plane, v_plane, rows, first_q
""",
    "one_plane_slice_allocated_trtllm": """
import torch


class PlanesPool:
    def __init__(self, layers, num_blocks, heads, dim):
        self.kv = [torch.zeros((2, num_blocks, heads, dim), dtype=torch.float8_e4m3fn) for _ in range(layers)]

    def forward(self, q, layer_idx, metadata):
        k = self.kv[layer_idx][:1].to(q.dtype)  # positive CL001
        v = self.kv[layer_idx][1:2, :].float()  # positive CL001
        part = self.kv[layer_idx][:1, metadata.block_ids].float()  # negative: the step's blocks
        return k, v, part
""",
    # -- narrow to the step's length -----------------------------------------------------------
    "narrow_window_lmdeploy": """
import torch


class NarrowAttention:
    def forward(self, query, key, value, k_cache, v_cache, attn_metadata, k_scales_zeros=None, v_scales_zeros=None):
        n = attn_metadata.block_offsets.size(0)
        a = k_cache.narrow(0, 0, n).float()  # negative: the batch's block count
        b = torch.narrow(v_cache, 0, 0, attn_metadata.q_seqlens.numel()).half()  # negative: the step's length
        c = k_cache.narrow(0, 0, k_cache.size(0)).to(query.dtype)  # positive CL001
        d = torch.narrow(v_cache, 0, 0, v_cache.shape[0]).float()  # positive CL001
        e = k_cache.narrow(2, 0, 64).float()  # positive CL001
        return a, b, c, d, e
""",
    # -- tensor constructors with a dtype ------------------------------------------------------
    "constructors_vllm": """
import torch


class CtorOffload:
    def __init__(self):
        self.caches = {}

    def register_kv_caches(self, kv_caches):
        self.caches = kv_caches
        self.probe = [torch.asarray(t, dtype=torch.float16) for t in kv_caches.values()]  # negative: setup
        self.once = {n: t.new_tensor(t, dtype=torch.float32) for n, t in kv_caches.items()}  # negative: setup

    def save_kv_layer(self, layer_name, kv_layer, attn_metadata, **kwargs):
        a = kv_layer.new_tensor(kv_layer, dtype=torch.bfloat16)  # positive CL001
        b = torch.asarray(kv_layer, dtype=torch.float16)  # positive CL001
        c = kv_layer.new_tensor(attn_metadata.slot_mapping, dtype=torch.int64)  # negative: slot mapping
        d = kv_layer.new_zeros(4, dtype=torch.float32)  # negative: allocation
        e = torch.as_tensor(kv_layer)  # negative: the tensor itself
        return a, b, c, d, e
""",
    "constructors_sglang": """
import torch


class CtorBackend:
    def __init__(self, model_runner):
        self.token_to_kv_pool = model_runner.token_to_kv_pool

    def forward_extend(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        kb = self.token_to_kv_pool.get_key_buffer(layer.layer_id)
        up = q.new_tensor(kb, dtype=q.dtype)  # positive CL001
        rows = q.new_tensor(kb[forward_batch.out_cache_loc], dtype=q.dtype)  # negative: the step's rows
        loc = kb.new_tensor(forward_batch.out_cache_loc, dtype=torch.int64)  # negative: indices
        return up, rows, loc
""",
    # -- copies into containers of another dtype -----------------------------------------------
    "copy_graph_dict_sglang": """
import torch


class GraphCopyBackend:
    def __init__(self, model_runner):
        self.token_to_kv_pool = model_runner.token_to_kv_pool
        self.dtype = model_runner.dtype
        self.graph_kv = {}
        self.mirror = {}

    def init_cuda_graph_state(self, max_bs, max_num_tokens):
        for lid in range(self.token_to_kv_pool.layer_num):
            self.graph_kv[lid] = self.token_to_kv_pool.get_key_buffer(lid).to(self.dtype)  # negative: setup
            self.mirror[lid] = self.token_to_kv_pool.get_key_buffer(lid).clone()  # negative: setup

    def init_forward_metadata_replay_cuda_graph(
        self, bs, req_pool_indices, seq_lens, seq_lens_sum, encoder_lens, forward_mode, spec_info, seq_lens_cpu
    ):
        for lid, dst in self.graph_kv.items():
            dst.copy_(self.token_to_kv_pool.get_key_buffer(lid))  # positive CL001
        for lid in self.graph_kv:
            self.graph_kv[lid].copy_(self.token_to_kv_pool.get_value_buffer(lid))  # positive CL001
        for lid, same in self.mirror.items():
            same.copy_(self.token_to_kv_pool.get_key_buffer(lid))  # negative: a copy in the pool's dtype
""",
    "copy_staging_dict_vllm": """
import torch


class StagingConnector:
    def __init__(self, vllm_config, role):
        self.kv_caches = {}
        self.pending = []

    def register_kv_caches(self, kv_caches):
        self.kv_caches = kv_caches
        self.staging = {n: t.to(torch.float16) for n, t in kv_caches.items()}  # negative: setup
        self.host = {n: torch.empty_like(t, dtype=torch.float16, device="cpu") for n, t in kv_caches.items()}
        self.pinned = {n: torch.empty(t.shape, dtype=torch.float16, pin_memory=True) for n, t in kv_caches.items()}

    def save_kv_layer(self, layer_name, kv_layer, attn_metadata, **kwargs):
        self.pending.append(layer_name)

    def wait_for_save(self):
        for name in self.pending:
            self.staging[name].copy_(self.kv_caches[name])  # positive CL001
            self.host[name].copy_(self.kv_caches[name])  # negative: a host mirror
            self.pinned[name].copy_(self.kv_caches[name], non_blocking=True)  # negative: a pinned host mirror
        self.pending.clear()
""",
    "copy_mirror_list_lmdeploy": """
import torch


class MirrorCacheEngine:
    def __init__(self, num_layers, num_blocks, block_size, heads, dim):
        shape = (num_blocks, block_size, heads, dim)
        self.k_caches = [torch.zeros(shape, dtype=torch.float8_e4m3fn) for _ in range(num_layers)]
        self.mirrors = [k.half() for k in self.k_caches]
        self.raw = [k.view(torch.uint8) for k in self.k_caches]

    def forward(self, query, key, value, k_cache, v_cache, attn_metadata, layer_idx=0):
        self.mirrors[layer_idx].copy_(k_cache)  # positive CL001
        self.raw[layer_idx].copy_(k_cache.view(torch.uint8))  # negative: the same bytes
        return query
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
    """The slice objects, constructors and host markers live in the tables, not in the analysis."""
    assert "slice" in TABLES.slice_constructors
    assert {"torch.as_tensor", "torch.asarray"} <= TABLES.conversion_constructors
    assert "new_tensor" in TABLES.conversion_constructor_methods
    assert "cpu" in TABLES.host_devices and "pin_memory" in TABLES.host_flags
