import torch


class HybridLinearKVPool:
    """Full-attention layers of a Qwen3-Next style model; linear layers keep state elsewhere."""

    def __init__(self, full_kv_pool, full_layer_ids, compute_dtype):
        self.full_kv_pool = full_kv_pool
        self.mapping = {lid: i for i, lid in enumerate(full_layer_ids)}
        self.compute_dtype = compute_dtype

    def get_key_buffer(self, layer_id):
        buf = self.full_kv_pool.k_buffer[self.mapping[layer_id]]
        return buf.to(self.compute_dtype)  # positive: f6 CL004 pool accessor widens its whole layer buffer

    def get_value_buffer(self, layer_id):
        return self.full_kv_pool.v_buffer[self.mapping[layer_id]]

    def get_key_rows(self, layer_id, loc):
        return self.full_kv_pool.k_buffer[self.mapping[layer_id]][loc].to(self.compute_dtype)  # negative: rows


class HybridLinearAttnBackend:
    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        pool = forward_batch.token_to_kv_pool
        k_buf = pool.get_key_buffer(layer.layer_id)  # note: per-step caller of the CL004 accessor
        v_buf = pool.get_value_buffer(layer.layer_id).to(q.device)  # negative: device only
        return k_buf, v_buf
