"""A hybrid SWA/full pool whose get_key_buffer converts to a compute dtype (CL004)."""
import torch


class SWAKVPoolWithCompute:
    def __init__(self, swa_kv_pool, full_kv_pool, layers_mapping, full_to_swa_index_mapping, compute_dtype=None):
        self.swa_kv_pool = swa_kv_pool
        self.full_kv_pool = full_kv_pool
        self.layers_mapping = layers_mapping
        self.full_to_swa_index_mapping = full_to_swa_index_mapping
        self.compute_dtype = compute_dtype

    def _sub(self, layer_id):
        local_id, is_swa = self.layers_mapping[layer_id]
        return (self.swa_kv_pool if is_swa else self.full_kv_pool), local_id

    def get_key_buffer(self, layer_id):
        pool, local_id = self._sub(layer_id)
        buf = pool.get_key_buffer(local_id)
        if self.compute_dtype is not None and buf.dtype != self.compute_dtype:
            return buf.to(self.compute_dtype)  # positive: f6 CL004 the accessor converts the whole sub-pool layer on every read
        return buf

    def get_value_buffer(self, layer_id):
        pool, local_id = self._sub(layer_id)
        return pool.get_value_buffer(local_id)

    def translate_loc_from_full_to_swa(self, kv_indices):
        return self.full_to_swa_index_mapping[kv_indices].to(torch.int64)  # negative: an index mapping


class SWATritonBackend:
    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        k_cache = forward_batch.token_to_kv_pool.get_key_buffer(layer.layer_id)  # note: per-step caller of the CL004 accessor
        v_cache = forward_batch.token_to_kv_pool.get_value_buffer(layer.layer_id)
        return self._decode(q, k_cache, v_cache, self.forward_metadata)
