"""PD disaggregation, prefill side: each layer is staged by a sender object that holds the pool."""
import torch


class LayerwiseKVSender:
    """Stages a finished layer for the decode instance while the next layer runs."""

    def __init__(self, kv_pool, transfer_dtype):
        self.kv_pool = kv_pool
        self.transfer_dtype = transfer_dtype
        self.staged = {}

    def stage_layer(self, layer_id, out_cache_loc):
        k = self.kv_pool.get_key_buffer(layer_id)
        if self.transfer_dtype != k.dtype:
            self.staged[layer_id] = k.to(self.transfer_dtype)  # positive: f1 CL001 whole key layer re-typed for the wire on every extend
        else:
            self.staged[layer_id] = k[out_cache_loc]
        raw = self.kv_pool.get_value_buffer(layer_id).view(torch.uint8)  # negative: zero-copy reinterpret for the RDMA registration
        return raw.data_ptr()


class DisaggPrefillBackend:
    def __init__(self, model_runner, sender: LayerwiseKVSender):
        self.sender = sender
        self.dtype = model_runner.dtype

    def forward_extend(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        if save_kv_cache:
            forward_batch.token_to_kv_pool.set_kv_buffer(layer, forward_batch.out_cache_loc, k, v)
        self.sender.stage_layer(layer.layer_id, forward_batch.out_cache_loc)
        return self._ragged_extend(q.to(self.dtype), k.to(self.dtype), v, forward_batch)  # negative: the step's q/k tensors
