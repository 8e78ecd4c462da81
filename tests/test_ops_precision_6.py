"""Precision and whole-keeping operations on unseen shapes (family_recall_6 round, ops): each
look-alike beside the positives that must stay found, in sglang, vLLM, lmdeploy and
TensorRT-LLM styles. None of these is a file of the corpus.

- setup hooks run once (`[hot_path] setup`: vLLM `register_kv_caches`, sglang's CUDA-graph
  state and capture hooks); their per-step counterparts (replay, the connector's load and
  save hooks) stay per step;
- a window bounded by the step's metadata divided by a layout size (`k_cache.size(1)`,
  `shape[2]`) is the step's, not the pool's extent (dataflow._layout_extent);
- `as_strided` to another size is a part of the pool (`[views] sized_methods`);
- `ravel`, `torch.ravel`, `reshape_as`, `clone(...)`, `requires_grad_(...)` keep every slot
  (`[views] methods`, `whole_methods`);
- `torch.as_tensor(x, dtype=)` / `torch.asarray(x, dtype=)` convert ( `[conversions] constructors`);
- `F.embedding(ids, table)` gathers its table (`[gathers] table_functions`: CL003);
- a dequant kernel's whole output converted in a pool getter is CL004 (`[views] whole_functions`);
- per-token scales and zeros (a literal last dimension of 1 or 2, `[allocation] scalar_last_dims`);
- nested classes constructed as `Outer.Inner(...)` / `self.Inner(...)`;
- TensorRT-LLM's KV managers looked up by `ResourceManagerType` (`[callables] keyed_lookups`);
- own dtype through a held accessor and a negative constant index.

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
    # -- setup hooks against per-step hooks ---------------------------------------------------
    "setup_hooks_vllm_connector": """
import torch


class StagingConnector:
    def __init__(self, vllm_config, role):
        self.dtype = torch.float16
        self.caches = {}

    def register_kv_caches(self, kv_caches):
        self.caches = kv_caches
        self.shadow = [t.to(self.dtype) for t in kv_caches.values()]  # negative: registration, once
        first = list(kv_caches.values())[0]
        self.template = first.float()  # negative: registration, once

    def wait_for_save(self):
        for name, cache in self.caches.items():
            self.shadow.append(cache.to(self.dtype))  # positive CL001

    def start_load_kv(self, forward_context, **kwargs):
        lane = self.caches[next(iter(self.caches))]
        return lane.half()  # positive CL001
""",
    "capture_replay_sglang": """
import torch


class GraphFlashBackend:
    def __init__(self, model_runner):
        self.pool = model_runner.token_to_kv_pool
        self.dtype = model_runner.dtype

    def init_cuda_graph_state(self, max_bs, max_num_tokens):
        self.probe = self.pool.get_value_buffer(0).to(self.dtype)  # negative: state setup
        self.decode_kv_indptr = torch.zeros(max_bs + 1, dtype=torch.int32)

    def init_forward_metadata_capture_cuda_graph(self, bs, num_tokens, req_pool_indices, seq_lens, *rest):
        for lid in range(self.pool.layer_num):
            self.probe = self.pool.get_key_buffer(lid).bfloat16()  # negative: capture, once per size

    def init_forward_metadata_replay_cuda_graph(self, bs, req_pool_indices, seq_lens, *rest):
        keys = self.pool.get_key_buffer(0).to(self.dtype)  # positive CL001
        self.decode_kv_indptr[: bs + 1].copy_(seq_lens.to(torch.int32))  # negative: lengths
        return keys
""",
    # -- windows bounded by the step over a layout size ----------------------------------------
    "layout_size_windows_lmdeploy": """
import torch


class PagedWindowImpl(torch.nn.Module):
    def forward(self, query, key, value, k_cache, v_cache, attn_metadata, k_scales_zeros=None, v_scales_zeros=None):
        n = attn_metadata.max_kv_seqlen
        blocks = (n + k_cache.size(1) - 1) // k_cache.size(1)
        a = k_cache[:blocks].to(query.dtype)  # negative: the blocks the longest sequence uses
        b = v_cache[: attn_metadata.max_kv_seqlen // v_cache.shape[1] + 1].float()  # negative: a window
        c = k_cache[: k_cache.size(0)].to(query.dtype)  # positive CL001
        d = v_cache[: v_cache.shape[0]].half()  # positive CL001
        return a, b, c, d
""",
    # -- whole-keeping operations -----------------------------------------------------------
    "whole_keeping_ops_trtllm": """
import torch


class LayoutKeepingAttention:
    def __init__(self, layer_idx):
        self.layer_idx = layer_idx

    def forward(self, q, k, v, metadata, **kwargs):
        buf = metadata.kv_cache_manager.get_buffers(self.layer_idx)
        a = buf.ravel().bfloat16()  # positive CL001
        b = torch.ravel(buf[:, 1]).to(q.dtype)  # positive CL001
        c = buf[:, 0].reshape_as(buf[:, 1]).float()  # positive CL001
        d = buf.detach().clone().to(q.dtype)  # positive CL001
        e = buf.requires_grad_(False).to(q.dtype)  # positive CL001
        f = buf.as_strided(buf.shape, buf.stride()).half()  # positive CL001
        used = metadata.num_blocks_in_use
        g = buf.as_strided((used,) + tuple(buf.shape[1:]), buf.stride()).half()  # negative: the blocks in use
        h = torch.ravel(buf[metadata.block_ids]).to(q.dtype)  # negative: gathered first
        i = buf[metadata.block_ids].clone().float()  # negative: gathered first
        j = k.ravel().to(q.dtype)  # negative: the step's keys
        return a, b, c, d, e, f, g, h, i, j
""",
    "conversion_constructors_lmdeploy": """
import torch
from torch import asarray


class CtorImpl(torch.nn.Module):
    def forward(self, query, key, value, k_cache, v_cache, attn_metadata, k_scales_zeros=None, v_scales_zeros=None):
        kd = asarray(k_cache, dtype=query.dtype)  # positive CL001
        vd = torch.as_tensor(v_cache, device=query.device, dtype=torch.float32)  # positive CL001
        moved = torch.as_tensor(v_cache, device=query.device)  # negative: no dtype
        lens = torch.as_tensor(attn_metadata.kv_seqlens, dtype=torch.int64)  # negative: lengths
        qd = torch.asarray(query, dtype=torch.float32)  # negative: the step's queries
        rows = torch.as_tensor(k_cache[attn_metadata.block_offsets], dtype=query.dtype)  # negative: gathered
        return kd, vd, moved, lens, qd, rows
""",
    "embedding_lookup_sglang": """
import torch
import torch.nn.functional as F


class EmbeddingGatherBackend:
    def __init__(self, model_runner):
        self.pool = model_runner.token_to_kv_pool

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        buf = self.pool.get_key_buffer(layer.layer_id)
        loc = forward_batch.out_cache_loc
        rows = F.embedding(loc, buf.view(buf.shape[0], -1).to(q.dtype))  # positive CL003
        kept = F.embedding(loc, buf.view(buf.shape[0], -1)).to(q.dtype)  # negative: gathered first
        pos = F.embedding(forward_batch.positions, self.rope_table.float())  # negative: no pool
        return rows, kept, pos
""",
    # -- pool getters that dequantize then convert ------------------------------------------
    "fp4_getter_dequant_sglang": """
import torch

from sgl_kernel import scaled_fp4_dequant


class NVFP4TokenToKVPool:
    def __init__(self, size, head_num, head_dim, layer_num, dtype):
        self.dtype = dtype
        self.k_buffer = [torch.zeros(size + 1, head_num, head_dim // 2, dtype=torch.uint8) for _ in range(layer_num)]
        self.k_scale = [torch.zeros(size + 1, head_num, head_dim // 16, dtype=torch.uint8) for _ in range(layer_num)]

    def get_key_buffer(self, layer_id):
        plane = scaled_fp4_dequant(self.k_buffer[layer_id], self.k_scale[layer_id])
        return plane.bfloat16()  # positive CL004

    def get_key_rows(self, layer_id, loc):
        rows = scaled_fp4_dequant(self.k_buffer[layer_id][loc], self.k_scale[layer_id][loc])
        return rows.to(self.dtype)  # negative: the rows asked for
""",
    # -- scales, zeros and staging buffers named like pools ---------------------------------
    "scales_and_nested_staging_sglang": """
import torch


class QuantMHABackend:
    class _Pool:
        def __init__(self, size, heads, dim, layers):
            self.k_buffer = [torch.zeros(size + 1, heads, dim, dtype=torch.int8) for _ in range(layers)]
            self.k_zero = [torch.zeros(size + 1, heads, 1) for _ in range(layers)]
            self.k_scale_zero = [torch.ones(size + 1, heads, 2) for _ in range(layers)]

        def key_plane(self, layer_id):
            return self.k_buffer[layer_id]

    class _Staging:
        def __init__(self, max_bs, heads, dim):
            self.k_buffer = torch.zeros(max_bs, heads, dim)

    def __init__(self, size, heads, dim, layers, max_bs):
        self.pool = self._Pool(size, heads, dim, layers)
        self.staging = QuantMHABackend._Staging(max_bs, heads, dim)

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        kp = self.pool.key_plane(layer.layer_id).to(q.dtype)  # positive CL001
        z = self.pool.k_zero[layer.layer_id].to(q.dtype)  # negative: zeros per token and head
        sz = self.pool.k_scale_zero[layer.layer_id].float()  # negative: scale and zero per token and head
        st = self.staging.k_buffer.to(q.dtype)  # negative: a batch-sized staging buffer
        return kp, z, sz, st
""",
    # -- TensorRT-LLM managers looked up by type --------------------------------------------
    "resource_manager_lookup_trtllm": """
import enum

import torch


class ResourceManagerType(enum.Enum):
    KV_CACHE_MANAGER = "KV_CACHE_MANAGER"
    DRAFT_KV_CACHE_MANAGER = "DRAFT_KV_CACHE_MANAGER"
    SPEC_RESOURCE_MANAGER = "SPEC_RESOURCE_MANAGER"


class DraftTargetVerifier:
    def forward(self, requests, resource_manager, layer_idx, dtype=torch.bfloat16):
        target = resource_manager.get_resource_manager(ResourceManagerType.KV_CACHE_MANAGER)
        t = target.get_buffers(layer_idx).float()  # positive CL001
        draft = resource_manager.get_resource_manager(ResourceManagerType.DRAFT_KV_CACHE_MANAGER)
        d = draft.get_buffers(layer_idx)[:, 0].to(dtype)  # positive CL001
        spec = resource_manager.get_resource_manager(ResourceManagerType.SPEC_RESOURCE_MANAGER)
        s = spec.get_buffers(layer_idx).float()  # negative: not a KV cache manager
        return t, d, s
""",
    # -- own dtype --------------------------------------------------------------------------
    "own_dtype_held_accessor_lmdeploy": """
import torch


class Int8CacheEngine:
    def __init__(self, num_layers, num_blocks, block_size, heads, dim):
        self._keys = [torch.empty(num_blocks, block_size, heads, dim, dtype=torch.int8) for _ in range(num_layers)]

    def key_cache_of(self, layer_idx):
        return self._keys[layer_idx]


class HeldAccessorAttention(torch.nn.Module):
    def __init__(self, engine, layer_idx):
        super().__init__()
        self.engine = engine
        self.layer_idx = layer_idx
        self.entries = []

    def forward(self, query, attn_metadata):
        read = getattr(self.engine, "key_cache_of")
        same = read(self.layer_idx).to(torch.int8)  # negative: its own dtype
        up = read(self.layer_idx).to(query.dtype)  # positive CL001
        last = self.entries[-1].to(self.entries[-1].dtype)  # negative: its own dtype
        return same, up, last
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


def test_setup_methods_are_data():
    assert {"register_kv_caches", "init_forward_metadata_capture_cuda_graph"} <= TABLES.run_once_methods
    assert "init_forward_metadata_replay_cuda_graph" not in TABLES.run_once_methods
    assert {"start_load_kv", "wait_for_layer_load", "wait_for_save", "replay"} <= TABLES.step_input_methods
