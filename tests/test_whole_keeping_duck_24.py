"""Round 24 (family_recall_22), in sglang, vLLM, lmdeploy and TRT-LLM styles other than the corpus's:
- elementwise ops keep a whole pool whole (`pow`, `log1p`, `erf`, `F.silu`, ...) and scans/reductions given
  `dtype=` convert their input, also as a method of what a function returned (`torch.pow(k, 2).sum(dtype=d)`);
  a helper object's method doing so, called as `self.policy.m(pool)` beside another class's m, keeps the
  construction that tells which m runs (pruned == whole);
- a method named like a container's (`update`, `append`, `get`) that one class of the module defines, called on
  an object of unknown class with arguments that fit it (`layer.index.update(k_buf, labels)`);
- a per-layer cache list indexed by a runner's layer-name map (`runner.kv_caches[runner.layer_index[name]]`,
  `extract_layer_index(name)`), read through an object holding its creator (`Scorer(self)`);
- vLLM KV connectors' worker-side methods taking `kv_layer` beside `layer_name` (`wait_for_layer_load`,
  `save_kv_layer` without `attn_metadata`).
Each positive has look-alikes beside it; the pruned analysis gives the whole file's findings, with and
without filler."""

from __future__ import annotations

import pytest

from marked_cases import assert_marked_lines, assert_pruned_is_whole

CASES = {
    "scan_dtype_policy_object_sglang": """\
import torch


class KeyEnergyTracker:
    def forward_extend(self, k_buf, loc):
        total = k_buf.pow(2).cumsum(0, dtype=torch.float32)  # positive: CL001 every row, scanned in fp32
        rows = torch.cumsum(k_buf[loc].pow(2), 0, dtype=torch.float32)  # negative: the new rows only
        plain = k_buf.pow(2).cumsum(0)  # negative: no dtype asked
        return total, rows, plain


class EnergyBackend:
    def __init__(self, model_runner):
        self.pool = model_runner.token_to_kv_pool
        self.tracker = KeyEnergyTracker()

    def forward_extend(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        k_buf = self.pool.get_key_buffer(layer.layer_id)
        return self.tracker.forward_extend(k_buf, forward_batch.out_cache_loc)
""",
    "log1p_prod_dtype_helper_lmdeploy": """\
import torch


class LogMagnitude:
    def forward(self, k_cache, block_offsets):
        mag = torch.log1p(k_cache.abs()).float()  # positive: CL001 whole key cache
        seq = torch.log1p(k_cache[block_offsets].abs()).float()  # negative: the sequence's blocks
        moved = torch.log1p(k_cache.abs()).to(block_offsets.device)  # negative: a device move
        return mag, seq, moved


class MagnitudeAttention(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.mag = LogMagnitude()
        self.scale = torch.ones(1).float()  # negative: setup-time scale

    def forward(self, hidden_states, k_cache, v_cache, attn_metadata):
        return self.mag.forward(k_cache, attn_metadata.block_offsets)
""",
    "function_result_sum_dtype_trtllm": """\
import torch
import torch.nn.functional as F


class GateStatsBackend:
    def forward(self, q, k, v, metadata, layer_idx):
        buf = metadata.kv_cache_manager.get_buffers(layer_idx)
        energy = torch.pow(buf, 2).sum(dtype=torch.float32)  # positive: CL001 whole layer buffer squared in fp32
        act = F.silu(buf).to(torch.float32)  # positive: CL001 whole layer buffer
        few = torch.pow(buf[metadata.block_ids], 2).sum(dtype=torch.float32)  # negative: the step's blocks
        moved = F.silu(buf).to(q.device)  # negative: a device move
        return energy, act, few, moved
""",
    "duck_update_centroids_sglang": """\
import torch


class CentroidIndex:
    def __init__(self, n, d):
        self.sums = torch.zeros(n, d, dtype=torch.float32)  # negative: allocation

    def update(self, keys, assign):
        self.sums.index_add_(0, assign, keys.flatten(0, 1).to(torch.float32))  # positive: CL001 every key row

    def update_rows(self, keys, rows, assign):
        self.sums.index_add_(0, assign, keys[rows].to(torch.float32))  # negative: new rows only


class ClusterBackend:
    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        keys = forward_batch.token_to_kv_pool.get_key_buffer(layer.layer_id)
        layer.centroids.update(keys, forward_batch.assign)
        layer.centroids.update_rows(keys, forward_batch.out_cache_loc, forward_batch.assign)
        stats = {}
        stats.update(step=forward_batch.step)
        return q
""",
    "duck_append_snapshot_vllm": """\
import torch


class SnapshotLog:
    def __init__(self):
        self.items = []

    def append(self, layer, kv_cache, block_ids=None):
        if block_ids is None:
            self.items.append(kv_cache.to(torch.float32))  # positive: CL001 whole paged cache copied in fp32
        else:
            self.items.append(kv_cache[:, block_ids].to(torch.float32))  # negative: the request's blocks


class SnapshotImpl:
    def forward(self, layer, query, key, value, kv_cache, attn_metadata, output=None):
        layer.log.append(layer, kv_cache)
        layer.log.append(layer, kv_cache, attn_metadata.block_table[0])
        return output
""",
    "duck_get_keyword_lmdeploy": """\
import torch


class DenseView:
    def get(self, k_cache, dtype=torch.float16):
        return k_cache.to(dtype)  # positive: CL001 whole block cache


class ViewAttention(torch.nn.Module):
    def forward(self, hidden_states, k_cache, v_cache, attn_metadata):
        dense = attn_metadata.views.get(k_cache, dtype=torch.float16)
        return dense, v_cache[attn_metadata.block_offsets].half()  # negative: gathered blocks
""",
    "holder_layer_index_scorer_vllm": """\
import torch


class BlockScorer:
    def __init__(self, runner):
        self.runner = runner

    def score(self, layer_name: str, block_ids=None):
        cache = self.runner.kv_caches[self.runner.layer_index[layer_name]]
        if block_ids is None:
            return cache[1].float()  # positive: CL001 value plane of every block
        return cache[1, block_ids].float()  # negative: blocks first


class GPUModelRunner:
    def __init__(self, kv_caches, layer_index):
        self.kv_caches = kv_caches
        self.layer_index = layer_index
        self.scorer = BlockScorer(self)

    def execute_model(self, scheduler_output, intermediate_tensors=None):
        for name in scheduler_output.layers:
            self.scorer.score(name)
        return scheduler_output.slot_mapping.to(torch.int64)  # negative: a slot table
""",
    "holder_index_local_trtllm": """\
import torch


class LayerProbe:
    def __init__(self, executor):
        self.executor = executor

    def probe(self, name):
        idx = self.executor.layer_index[name]
        self.last = self.executor.kv_caches[idx].to(torch.float32)  # positive: CL001 the layer's whole cache


class PyExecutor:
    def __init__(self, kv_caches, layer_index):
        self.kv_caches = kv_caches
        self.layer_index = layer_index
        self.probe = LayerProbe(self)

    def _forward_step(self, scheduled_requests, new_tensors_device=None):
        for name in scheduled_requests.names:
            self.probe.probe(name)
        return scheduled_requests.block_ids.to(torch.int32)  # negative: block ids
""",
    "holder_plane_tracer_sglang": """\
import torch


class KeyTracer:
    def __init__(self, model_runner):
        self.model_runner = model_runner

    def trace(self, layer, loc):
        mr = self.model_runner
        entry = mr.kv_caches[mr.layer_index[layer.name]]
        whole = entry[0].to(torch.bfloat16)  # positive: CL001 every slot's keys
        some = entry[0][loc].to(torch.bfloat16)  # negative: the step's rows
        return whole, some


class ModelRunner:
    def __init__(self, kv_caches, layer_index):
        self.kv_caches = kv_caches
        self.layer_index = layer_index
        self.tracer = KeyTracer(self)

    def forward_extend(self, forward_batch, skip_attn_backend_init=False):
        return [self.tracer.trace(layer, forward_batch.out_cache_loc) for layer in forward_batch.layers]
""",
    "connector_wait_load_check_vllm": """\
import torch


class ChecksumConnector:
    def __init__(self, dtype):
        self.dtype = dtype
        self.pending = {}

    def wait_for_layer_load(self, layer_name, kv_layer=None):
        if kv_layer is None:
            return None
        return kv_layer.float().sum()  # positive: CL001 whole layer widened per load

    def start_load_kv(self, forward_context, **kwargs):
        for name, blob in self.pending.items():
            blob.to(self.dtype)  # negative: a loaded blob
""",
    "connector_save_no_metadata_vllm": """\
import torch


class OffloadConnector:
    def save_kv_layer(self, layer_name, kv_layer, metadata, **kwargs):
        full = kv_layer.to(torch.float16)  # positive: CL001 the layer's whole cache
        part = kv_layer[:, metadata.slots].to(torch.float16)  # negative: slots first
        return full, part

    def load(self, layer_name, kv_layer_index):
        return kv_layer_index.to(torch.int64)  # negative: not the connector's kv_layer
""",
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_marked_lines(tmp_path, name):
    assert_marked_lines(tmp_path, name, CASES[name])


@pytest.mark.parametrize("name", sorted(CASES))
@pytest.mark.parametrize("filler", [False, True], ids=["as-is", "with-filler"])
def test_pruned_is_whole(tmp_path, name, filler):
    assert_pruned_is_whole(tmp_path, name, CASES[name], filler)
