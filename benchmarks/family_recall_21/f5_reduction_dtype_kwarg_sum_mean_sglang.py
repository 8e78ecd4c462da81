import torch


class KVStatsBackendMixin:
    """Per-step KV statistics for the load balancer; sums accumulate in fp32 via dtype=."""

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        pool = forward_batch.token_to_kv_pool
        k_buf = pool.get_key_buffer(layer.layer_id)
        v_buf = pool.get_value_buffer(layer.layer_id)
        key_sum = torch.sum(k_buf, dim=0, dtype=torch.float32)  # positive: f5 CL001 reduction upcasts the whole key buffer via dtype=
        val_mean = v_buf.mean(dim=(0, 1), dtype=torch.float32)  # positive: f5 CL001 method form, whole value buffer
        loc = forward_batch.out_cache_loc
        new_sum = torch.sum(k_buf[loc], dim=0, dtype=torch.float32)  # negative: rows first
        q_sum = q.sum(dim=-1, dtype=torch.float32)  # negative: query
        count = torch.sum(k_buf.isfinite(), dim=0)  # negative: no dtype change requested
        return key_sum, val_mean, new_sum, q_sum, count
