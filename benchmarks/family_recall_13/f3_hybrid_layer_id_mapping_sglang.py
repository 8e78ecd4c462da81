import torch


class HybridLinearKVPool:
    def __init__(self, full_attention_layer_ids, full_kv_pool, mamba_pool):
        self.full_attention_layer_id_mapping = {lid: i for i, lid in enumerate(full_attention_layer_ids)}
        self.full_kv_pool = full_kv_pool
        self.mamba_pool = mamba_pool


class HybridFallbackBackend:
    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        pool = forward_batch.token_to_kv_pool
        idx = pool.full_attention_layer_id_mapping[layer.layer_id]
        k_layer = pool.full_kv_pool.k_buffer[idx]
        v_layer = pool.full_kv_pool.v_buffer[idx]
        k_layer = k_layer.to(q.dtype)  # positive: f3 CL001 full-attention layer found through the id mapping dict
        v_layer = v_layer.to(q.dtype)  # positive: f3 CL001 full-attention layer found through the id mapping dict
        conv = pool.mamba_pool.conv_state[forward_batch.req_pool_indices].float()  # negative: gathered mamba state of the step's requests
        return self._decode(q, k_layer, v_layer, conv)

    def _decode(self, q, k, v, conv):
        return q
