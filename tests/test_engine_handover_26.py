"""Round 26 (family_recall_24): caches that engine conventions hand over, and the objects that hold them,
in sglang, vLLM, lmdeploy and TRT-LLM styles other than the corpus's:
- registration hooks: vLLM's `register_cross_layers_kv_cache(self, kv_cache, attn_backend)` hands over every
  layer's cache in one tensor, blocks first (rules/conventions.toml); kept on self, in a holder object or in a
  dict, the per-step hooks (`wait_for_save`, `start_load_kv`, `save_kv_layer`) that convert it convert the
  whole cache, while one block (`kv_cache[block_id]`) or the request's blocks are not;
- an engine's list of per-layer caches (rules/accessors.toml [cache_attributes] python_lists: vLLM's
  GPUModelRunner.kv_caches, bind_kv_cache's runner_kv_caches, lmdeploy's CacheEngine.gpu_cache) on an object
  the file does not build: any one index picks one whole entry (a list takes no tensor of indices), whatever
  table the index comes from; a class that builds its own tensor under the name is read by its allocation;
- a conventional parameter read from `**kwargs` (`kwargs["past_key_values"]`, `.get`, `.pop`) of a method of
  the convention is that parameter; `capture` stays setup.
Each positive has look-alikes beside it; the pruned analysis gives the whole file's findings, with and
without filler."""

from __future__ import annotations

import pytest

from marked_cases import assert_marked_lines, assert_pruned_is_whole

CASES = {
    # --- registration hooks -------------------------------------------------------------------------
    "cross_layers_attribute_wait_for_save_vllm": """\
import torch


class DumpConnectorWorker:
    def register_cross_layers_kv_cache(self, kv_cache, attn_backend):
        self.cross = kv_cache
        self.probe = kv_cache[0].to(torch.float32)  # negative: setup, one block at registration

    def wait_for_save(self):
        wide = self.cross.to(torch.bfloat16)  # positive: CL001 every layer's cache per step
        for req in self._reqs:
            self._sink.put(self.cross[req.block_ids].to("cpu"))  # negative: the request's blocks moved
            self._sink.put(self.cross[req.block_ids].to(torch.bfloat16))  # negative: the request's blocks
        return wide
""",
    "cross_layers_holder_start_load_kv_vllm": """\
import torch


class _CrossPool:
    def __init__(self, tensor):
        self.tensor = tensor

    def layer_view(self, layer):
        return self.tensor[:, layer]

    def block(self, block_id):
        return self.tensor[block_id]


class StageConnectorWorker:
    def register_cross_layers_kv_cache(self, kv_cache, attn_backend):
        self.pool = _CrossPool(kv_cache)

    def start_load_kv(self, forward_context, **kwargs):
        for layer in range(self.num_layers):
            staged = self.pool.layer_view(layer).to(torch.float16)  # positive: CL001 one layer of every block
            self._staged.append(staged)
        first = self.pool.block(self._first_block).to(torch.float16)  # negative: one block
        return first
""",
    "cross_layers_dict_save_kv_layer_vllm": """\
import torch


class OffloadWorker:
    def register_cross_layers_kv_cache(self, kv_cache, attn_backend=None):
        self.caches = {"ALL_LAYERS": kv_cache}
        self.scales = {"ALL_LAYERS": torch.ones(4)}

    def save_kv_layer(self, layer_name, kv_layer, attn_metadata, **kwargs):
        whole = self.caches["ALL_LAYERS"]
        host = whole.to(torch.bfloat16)  # positive: CL001 the cross-layer cache per layer saved
        scale = self.scales["ALL_LAYERS"].to(torch.bfloat16)  # negative: a scale tensor
        moved = whole[attn_metadata.block_ids].to(torch.bfloat16)  # negative: the saved blocks
        return host, scale, moved
""",
    # --- an engine's list of per-layer caches -----------------------------------------------------
    "runner_kv_caches_by_name_table_vllm": """\
import torch


class MedusaProposer:
    def propose(self, hidden, layer_names):
        mr = self.model_runner
        out = []
        for name in layer_names:
            kv = mr.kv_caches[mr.layer_name_to_slot[name]]
            if kv.dtype != self.dtype:
                kv = kv.to(self.dtype)  # positive: CL001 the target layer's whole cache
            out.append(kv)
        rows = mr.kv_caches[0][:, self.block_ids].to(self.dtype)  # negative: rows of the batch
        h = hidden.to(self.dtype)  # negative: hidden states
        return out, rows, h
""",
    "cache_engine_gpu_cache_entry_lmdeploy": """\
import torch


class DraftCacheView:
    def __init__(self, cache_engine, slot_of_layer):
        self.engine = cache_engine
        self.slot_of_layer = slot_of_layer

    def forward(self, layer_id, block_offsets):
        entry = self.engine.gpu_cache[self.slot_of_layer[layer_id]]
        k = entry[0].to(torch.float16)  # positive: CL001 the layer's whole key cache
        v = entry[1][block_offsets].to(torch.float16)  # negative: the step's blocks
        s = entry[2].to(torch.float16)  # negative: the entry's scales/zeros
        return k, v, s
""",
    "runner_kv_caches_never_assigned_vllm": """\
import torch


class LegacyBuilder:
    def build(self, common_attn_metadata):
        cache = self.runner_kv_caches[self.position_of[self.layer_name]]
        wide = cache.to(self.model_dtype)  # positive: CL001 the layer's whole cache
        table = common_attn_metadata.block_table_tensor.to(torch.int32)  # negative: block table
        return wide, table


class OwnBuffer:
    def __init__(self, n):
        self.kv_caches = torch.empty(n, 16, 8, 128, dtype=torch.float8_e4m3fn)

    def forward(self, ids):
        return self.kv_caches[self.rows_of[ids]].to(torch.bfloat16)  # negative: rows of its own tensor
""",
    # --- conventional parameters through **kwargs --------------------------------------------------
    "graph_runner_call_kwargs_get_lmdeploy": """\
import torch


class Int4ShadowRunner:
    def capture(self, **kwargs):
        self.shadow = [(k.half(), v.half()) for k, v in kwargs.get("past_key_values")]  # negative: setup

    def __call__(self, **kwargs):
        caches = kwargs.get("past_key_values")
        for i, (k_cache, v_cache) in enumerate(caches):
            self.shadow[i][0].copy_(k_cache.half())  # positive: CL001 whole key cache per replay
            self.shadow[i][1].copy_(v_cache.half())  # positive: CL001 whole value cache per replay
        lens = kwargs["attn_metadata"].q_seqlens.to(torch.int32)  # negative: sequence lengths
        return self.graph.replay(), lens
""",
    "impl_forward_kwargs_pop_vllm": """\
import torch


class PassThroughImpl:
    def forward(self, layer, query, key, value, **kwargs):
        kv_cache = kwargs.pop("kv_cache")
        meta = kwargs.pop("attn_metadata")
        dense = kv_cache.to(query.dtype)  # positive: CL001 the layer's whole paged cache
        slots = meta.slot_mapping.to(torch.int64)  # negative: slot mapping
        same = key.to(query.dtype)  # negative: this step's new keys
        return dense, slots, same

    def describe(self, **kwargs):
        return kwargs["kv_cache"].to("cpu")  # negative: no convention names describe
""",
    "attention_impl_kwargs_subscript_lmdeploy": """\
import torch


class TritonFallbackImpl:
    def forward(self, query, key, value, **kwargs):
        k_cache = kwargs["k_cache"]
        v_cache = kwargs["v_cache"]
        k_full = k_cache.float()  # positive: CL001 the layer's whole key block cache
        v_rows = v_cache[kwargs["attn_metadata"].block_offsets].float()  # negative: the step's blocks
        q = query.float()  # negative: the query
        return k_full, v_rows, q
""",
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_marked_lines(tmp_path, name):
    assert_marked_lines(tmp_path, name, CASES[name])


@pytest.mark.parametrize("name", sorted(CASES))
@pytest.mark.parametrize("filler", [False, True], ids=["as-is", "with-filler"])
def test_pruned_is_whole(tmp_path, name, filler):
    assert_pruned_is_whole(tmp_path, name, CASES[name], filler)
