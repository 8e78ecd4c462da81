import torch

from . import upcast_layer_kv, gather_layer_rows


class FlashInferFallbackBackend:
    def __init__(self, model_runner):
        self.dtype = model_runner.dtype

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        pool = forward_batch.token_to_kv_pool
        k_all, v_all = upcast_layer_kv(pool, layer.layer_id, q.dtype)
        return self._decode(q, k_all, v_all)

    def forward_extend(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        pool = forward_batch.token_to_kv_pool
        rows = gather_layer_rows(pool, layer.layer_id, forward_batch.out_cache_loc, q.dtype)
        prefix = forward_batch.extend_prefix_lens.to(torch.int32)  # negative: prefix lengths
        return self._extend(q, rows, prefix)

    def _decode(self, *a):
        return a[0]

    def _extend(self, *a):
        return a[0]
