"""A mixin resolving a global layer id to the SWA or full sub-pool of a hybrid pool."""
import torch


class HybridLayerMixin:
    def _sub_pool(self, layer_id):
        pool = self.token_to_kv_pool
        local_id, is_swa = pool.layers_mapping[layer_id]
        sub = pool.swa_kv_pool if is_swa else pool.full_kv_pool
        return sub, local_id, is_swa


class AttentionBackend:
    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        raise NotImplementedError


class TritonSWAFallbackBackend(HybridLayerMixin, AttentionBackend):
    def __init__(self, model_runner):
        self.token_to_kv_pool = model_runner.token_to_kv_pool
        self.dtype = model_runner.dtype

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        sub, local_id, is_swa = self._sub_pool(layer.layer_id)
        if is_swa:
            win = self.token_to_kv_pool.translate_loc_from_full_to_swa(self.forward_metadata.window_kv_indices)
            k_win = sub.k_buffer[local_id][win].to(self.dtype)  # negative: the window's rows only
            v_win = sub.v_buffer[local_id][win].to(self.dtype)  # negative: the window's rows only
            return self._decode_dense(q, k_win, v_win, layer)
        k_cache = sub.k_buffer[local_id].to(self.dtype)  # positive: f2 CL001 whole full-attention layer from the mixin's sub-pool
        v_cache = sub.v_buffer[local_id].to(self.dtype)  # positive: f2 CL001 whole full-attention layer
        kv_indices = self.forward_metadata.kv_indices.to(torch.int64)  # negative: an index tensor
        return self._decode_paged(q, k_cache, v_cache, kv_indices, layer)
