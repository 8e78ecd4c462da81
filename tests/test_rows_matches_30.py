"""Round 30 (family_recall_20/_26's containers), in sglang, vLLM, lmdeploy and TRT-LLM styles other than the
corpus's:
- functions applied to rows ([iteration] star_apply: `itertools.starmap(f, rows)` calls `f(*row)`): a
  parameter of f (a def, a bound method, a lambda) takes one position of each row of any iterable the flow model
  reads element-wise (`d.items()`: key, value; `enumerate(xs)`, `zip(a, b)`, a generator of displays), not only
  rows the file shows as displays;
- names a `case` pattern binds, read after the `match` statement (not only in the case's own body): what the
  cases that bind the name give, as expressions of the subject.
Each positive has look-alikes beside it (slot gathers, scales, counters, the query); the pruned analysis gives
the whole file's findings, with and without filler."""

from __future__ import annotations

import pytest

from marked_cases import assert_marked_lines, assert_pruned_is_whole

CASES = {
    # -- starmap over rows the file does not show as displays -------------------------------------------------
    "starmap_items_connector_vllm": """\
import itertools

import torch

from vllm.distributed.kv_transfer.kv_connector.v1.base import KVConnectorBase_V1


class HostMirrorConnector(KVConnectorBase_V1):
    def __init__(self, vllm_config, role):
        super().__init__(vllm_config, role)
        self.host_dtype = torch.bfloat16
        self._staged = {}

    def save_kv_layer(self, layer_name, kv_layer, attn_metadata, **kwargs):
        self._staged[layer_name] = (kv_layer, attn_metadata.slot_mapping, layer_name)

    def _mirror(self, name, entry):
        kv, slots, _ = entry
        whole = kv.to(self.host_dtype)  # positive: CL001 the staged layer's whole cache
        rows = kv[:, slots].to(self.host_dtype)  # negative: the step's slots
        ids = slots.to(torch.int64)  # negative: the slot mapping, the row's other position
        return name, whole, rows, ids

    def wait_for_save(self):
        out = list(itertools.starmap(self._mirror, self._staged.items()))
        self._staged.clear()
        return out
""",
    "starmap_enumerate_layers_lmdeploy": """\
from itertools import starmap

import torch


class DenseDumpModel(torch.nn.Module):
    def __init__(self, dump_dtype=torch.float32):
        super().__init__()
        self.dump_dtype = dump_dtype

    def _dump(self, layer_idx, entry):
        k_cache, v_cache = entry
        head = torch.tensor(layer_idx).to(self.dump_dtype)  # negative: the layer counter
        return head, k_cache.to(self.dump_dtype), v_cache[0].to(self.dump_dtype)  # positive: CL001 whole key cache

    def forward(self, input_ids, position_ids, past_key_values, attn_metadata):
        dumped = list(starmap(self._dump, enumerate(past_key_values)))
        return dumped, input_ids.to(self.dump_dtype)  # negative: the ids
""",
    "starmap_zip_module_function_sglang": """\
import itertools

import torch


def _widen(buf, scale, dtype):
    return buf.to(dtype) * scale.to(dtype)  # positive: CL001 each layer's whole key buffer


def _rescale(scale, layer_id, dtype):
    return scale.to(dtype)  # negative: only scales reach this one


class WidenedKeyBackend:
    def __init__(self, model_runner):
        self.pool = model_runner.token_to_kv_pool
        self.num_layers = model_runner.model_config.num_hidden_layers

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        bufs = [self.pool.get_key_buffer(i) for i in range(self.num_layers)]
        scales = [layer.k_scale for _ in range(self.num_layers)]
        widened = list(itertools.starmap(_widen, zip(bufs, scales, itertools.repeat(q.dtype))))
        rescaled = list(itertools.starmap(_rescale, zip(scales, range(self.num_layers), itertools.repeat(q.dtype))))
        return widened, rescaled, q.to(torch.float32)  # negative: the query
""",
    "starmap_generator_rows_lambda_trtllm": """\
import itertools

import torch


class LayerwiseExportHook:
    def __init__(self, export_dtype=torch.float16):
        self.export_dtype = export_dtype

    def _forward_step(self, executor, scheduled):
        mgr = executor.resource_manager.get_resource_manager("kv_cache_manager")
        layers = range(mgr.num_local_layers)
        rows = zip(layers, map(mgr.get_buffers, layers))
        export = lambda i, buf: (
            i,
            buf.to(self.export_dtype),  # positive: CL001 each layer's whole buffer
        )
        out = list(itertools.starmap(export, rows))
        block_rows = zip(layers, (mgr.get_buffers(i)[scheduled.block_ids] for i in layers))
        pick = lambda i, b: b.to(self.export_dtype)  # negative: blocks first
        picked = list(itertools.starmap(pick, block_rows))
        return out, picked, scheduled.tokens.to(torch.int32)  # negative: token ids
""",
    # -- names a case pattern binds, read after the match -------------------------------------------------------
    "match_bound_after_pair_lmdeploy": """\
import torch


class FallbackAttention(torch.nn.Module):
    def __init__(self, compute_dtype=torch.float16):
        super().__init__()
        self.compute_dtype = compute_dtype

    def forward(self, hidden_states, rotary_pos_emb, past_key_value, attn_metadata):
        match past_key_value:
            case (k_cache, v_cache, k_scales, v_scales):
                pass
            case [k_cache, v_cache]:
                k_scales = v_scales = None
            case _:
                raise ValueError("unknown cache entry")
        k = k_cache.to(self.compute_dtype)  # positive: CL001 whole key cache bound by a case, read after the match
        v = v_cache.to(self.compute_dtype)  # positive: CL001 whole value cache, the same way
        blocks = v_cache[attn_metadata.block_offsets].to(self.compute_dtype)  # negative: the batch's blocks
        s = k_scales.to(self.compute_dtype)  # negative: the scales position
        return k, v, blocks, s, hidden_states.to(self.compute_dtype)  # negative: the hidden states
""",
    "match_bound_after_buffers_sglang": """\
import torch


class MatchedBufferBackend:
    def __init__(self, model_runner):
        self.model_runner = model_runner

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        pool = forward_batch.token_to_kv_pool
        match (pool.get_key_buffer(layer.layer_id), forward_batch.out_cache_loc):
            case (key_buf, loc) if loc is not None:
                pass
            case (key_buf, _):
                loc = forward_batch.req_pool_indices
        dense = key_buf.to(q.dtype)  # positive: CL001 the layer's whole key buffer, read after the match
        picked = key_buf[loc].to(q.dtype)  # negative: the step's slots
        where = loc.to(torch.int64)  # negative: the slot indices
        return dense, picked, where, q.to(torch.float32)  # negative: the query
""",
    "match_bound_after_class_pattern_trtllm": """\
import dataclasses

import torch


@dataclasses.dataclass
class LayerView:
    buf: torch.Tensor
    block_ids: torch.Tensor


class ExportingAttention:
    def __init__(self, layer_idx):
        self.layer_idx = layer_idx

    def forward(self, q, k, v, metadata, kv_cache_manager):
        view = LayerView(kv_cache_manager.get_buffers(self.layer_idx), metadata.block_ids)
        match view:
            case LayerView(buf=layer_buf, block_ids=ids):
                pass
        whole = layer_buf.to(torch.bfloat16)  # positive: CL001 the layer's buffer bound by a class pattern
        some = layer_buf[ids].to(torch.bfloat16)  # negative: the batch's blocks
        return whole, some, ids.to(torch.int32)  # negative: the block ids
""",
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_marked_lines(tmp_path, name):
    assert_marked_lines(tmp_path, name, CASES[name])


@pytest.mark.parametrize("name", sorted(CASES))
@pytest.mark.parametrize("filler", [False, True], ids=["as-is", "with-filler"])
def test_pruned_is_whole(tmp_path, name, filler):
    assert_pruned_is_whole(tmp_path, name, CASES[name], filler)
