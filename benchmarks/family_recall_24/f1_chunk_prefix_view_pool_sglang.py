# sglang chunked prefill: a per-request prefix view built in forward_extend that keeps
# the pool and the request's token slots.
import torch


class PrefixView:
    def __init__(self, pool, layer_id, slots):
        self.pool = pool
        self.layer_id = layer_id
        self.slots = slots

    def rows(self, dtype):
        return self.pool.get_key_buffer(self.layer_id)[self.slots].to(dtype)  # negative: prefix rows gathered first

    def everything(self, dtype):
        return self.pool.get_key_buffer(self.layer_id).to(dtype)  # positive: f1 CL001 whole per-layer key buffer


class TorchNativeChunkedBackend:
    def forward_extend(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        view = PrefixView(forward_batch.token_to_kv_pool, layer.layer_id, forward_batch.out_cache_loc)
        if forward_batch.extend_prefix_lens_cpu and max(forward_batch.extend_prefix_lens_cpu) > 0:
            keys = view.rows(q.dtype)
        else:
            keys = view.everything(q.dtype)
        return self._attend(q, keys, layer)
