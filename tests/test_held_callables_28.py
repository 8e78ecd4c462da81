"""Round 28 (family_recall_26), call indirection, in sglang, vLLM and TRT-LLM styles other than the
corpus's:
- a container's bound take method held uncalled (`self._fetch = caches.pop`, `take = bufs.__getitem__`,
  `self._get = self.layers.setdefault`) and called per step: the call gives one whole layer;
- a table of lambdas or nested defs held on self (or in a local) and called per step with a whole buffer: the
  cast is reported at the lambda's (def's) line.
Each positive has look-alikes beside it; the pruned analysis gives the whole file's findings, with and
without filler."""

from __future__ import annotations

import pytest

from marked_cases import assert_marked_lines, assert_pruned_is_whole

CASES = {
    "bound_get_trtllm": """\
import torch


class SpillAttention:
    def __init__(self, kv_cache_manager, num_layers):
        self.layer_caches = {i: kv_cache_manager.get_buffers(i) for i in range(num_layers)}
        self._fetch = self.layer_caches.get
        self.spill_dtype = torch.float16

    def forward(self, q, layer_idx, metadata):
        buf = self._fetch(layer_idx)
        spilled = buf.to(self.spill_dtype)  # positive: CL001 every block of the layer
        rows = buf[metadata.block_ids].to(self.spill_dtype)  # negative: this step's blocks only
        moved = rows.to("cpu", non_blocking=True)  # negative: a device move of the rows
        return spilled, moved
""",
    "bound_pop_vllm": """\
import torch

from vllm.distributed.kv_transfer.kv_connector.v1.base import KVConnectorBase_V1


class DrainConnector(KVConnectorBase_V1):
    def __init__(self, vllm_config, role):
        super().__init__(vllm_config, role)
        self.wire_dtype = torch.bfloat16
        self._staged = {}
        self._take = self._staged.pop

    def save_kv_layer(self, layer_name, kv_layer, attn_metadata, **kwargs):
        self._staged[layer_name] = kv_layer

    def wait_for_save(self):
        for name in list(self._staged):
            layer = self._take(name)
            sent = layer.to(self.wire_dtype)  # positive: CL001 whole layer drained through a bound pop
            same = layer.to(layer.dtype)  # negative: to its own dtype
            yield name, sent, same
""",
    "bound_getitem_sglang": """\
import torch


class LayerwiseDecode:
    def __init__(self, model_runner):
        self.pool = model_runner.token_to_kv_pool
        self.compute_dtype = torch.bfloat16

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        layer_of = self.pool.k_buffer.__getitem__
        keys = layer_of(layer.layer_id).to(self.compute_dtype)  # positive: CL001 whole layer, a bound __getitem__
        idx = forward_batch.out_cache_loc
        rows = layer_of(layer.layer_id)[idx].to(self.compute_dtype)  # negative: the step's rows gathered first
        return keys, rows
""",
    "lambda_table_trtllm": """\
import torch


class MixedWindowReader:
    def __init__(self, kv_cache_manager, window, compute_dtype=torch.bfloat16):
        self.mgr = kv_cache_manager
        self.window = window
        self.compute_dtype = compute_dtype
        self.by_kind = (
            lambda buf: buf[-self.window:].to(self.compute_dtype),  # negative: the window only
            lambda buf: buf.float(),  # positive: CL001 every block of a global-attention layer
        )

    def forward(self, q, layer_idx, is_global):
        return self.by_kind[int(is_global)](self.mgr.get_buffers(layer_idx))
""",
    "lambda_table_vllm": """\
import torch


class TorchRefImpl:
    def __init__(self, num_heads, head_size, scale):
        self.scale = scale
        self.upcast = {
            "fp8": lambda c, t: c.view(torch.uint8).to(t),  # positive: CL001 the whole cache widened
            "auto": lambda c, t: c,  # negative: no cast
        }
        self.scale_t = torch.ones(1).to(torch.float32)  # negative: a scale made at setup

    def forward(self, layer, query, key, value, kv_cache, attn_metadata):
        wide = self.upcast[layer.kv_cache_dtype](kv_cache, query.dtype)
        return query @ wide[0].flatten(0, 1).T
""",
    "nested_def_table_sglang": """\
import torch


class HybridReader:
    def __init__(self, pool, compute_dtype=torch.bfloat16):
        self.pool = pool
        self.compute_dtype = compute_dtype

        def whole(buf, lens):
            return buf.to(self.compute_dtype)  # positive: CL001 whole full-attention layer

        def tail(buf, lens):
            return buf[lens - 128:lens].to(self.compute_dtype)  # negative: the window rows only

        self.readers = {"full": whole, "swa": tail}

    def read(self, layer, seq_len):
        kind = "swa" if layer.sliding_window_size > 0 else "full"
        return self.readers[kind](self.pool.get_key_buffer(layer.layer_id), seq_len)


class Backend:
    def __init__(self, model_runner):
        self.reader = HybridReader(model_runner.token_to_kv_pool)

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        return self.reader.read(layer, int(forward_batch.seq_lens_cpu.max()))
""",
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_marked_lines(tmp_path, name):
    assert_marked_lines(tmp_path, name, CASES[name])


@pytest.mark.parametrize("name", sorted(CASES))
@pytest.mark.parametrize("filler", [False, True], ids=["as-is", "with-filler"])
def test_pruned_is_whole(tmp_path, name, filler):
    assert_pruned_is_whole(tmp_path, name, CASES[name], filler)
