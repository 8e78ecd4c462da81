import torch


class LoRAQKVAttention(torch.nn.Module):
    """Multi-LoRA wrapper around a RadixAttention: the adapters touch q/k/v, the base layer owns the KV."""

    def __init__(self, base_layer, lora_backend):
        super().__init__()
        self.base_layer = base_layer
        self.lora_backend = lora_backend
        self.layer_id = base_layer.layer_id

    def _pool(self, forward_batch):
        return forward_batch.token_to_kv_pool

    def forward(self, q, k, v, forward_batch):
        q = q + self.lora_backend.run_lora_a_b(q, forward_batch.lora_ids)
        pool = self._pool(forward_batch)
        if forward_batch.forward_mode.is_decode() and not self.lora_backend.fp8_kv_ok:
            k_full = pool.get_key_buffer(self.layer_id).to(q.dtype)  # positive: f1 CL001 pool reached through the wrapper's forward_batch helper
            v_full = pool.get_value_buffer(self.layer_id).to(q.dtype)  # positive: f1 CL001 value plane, same path
            return self.base_layer.attn_backend.decode_dense(q, k_full, v_full)
        adapter = self.lora_backend.weights[self.layer_id].to(q.dtype)  # negative: LoRA weights, not the pool
        loc = forward_batch.out_cache_loc
        k_new = pool.get_key_buffer(self.layer_id)[loc].to(q.dtype)  # negative: gathered rows
        return self.base_layer(q @ adapter, k_new, v, forward_batch)
