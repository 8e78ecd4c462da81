import torch


class HiCacheWriteBackPolicy:
    """Writes layers back to host from the last to the first at the end of each decode step."""

    def __init__(self, pool, host_pool, fp8_layers):
        self.pool = pool
        self.host_pool = host_pool
        self.layer_ids = set(range(pool.start_layer, pool.end_layer))
        self.fp8_layers = fp8_layers

    def on_decode_step_end(self, forward_batch):
        for lid in reversed(sorted(self.layer_ids)):
            buf = self.pool.get_key_buffer(lid)
            if lid in self.fp8_layers:
                self.host_pool.k_buffer[lid].copy_(buf)  # negative: host mirror of the same dtype
            else:
                self.host_pool.k_buffer[lid].copy_(buf.to(self.host_pool.dtype))  # positive: f3 CL001 whole layer converted to the host dtype


class HiCacheDecodeBackend:
    def __init__(self, policy):
        self.policy = policy

    def forward_decode(self, q, k, v, layer, forward_batch):
        out = q
        if layer.layer_id == self.policy.pool.end_layer - 1:
            self.policy.on_decode_step_end(forward_batch)  # note: per-step caller
        return out
