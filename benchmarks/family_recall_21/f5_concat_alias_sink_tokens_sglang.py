import torch


class SinkConcatBackend:
    """Prepends learned sink keys to the cache for a torch SDPA fallback (no FP8 SDPA)."""

    def __init__(self, sink_k: torch.Tensor, sink_v: torch.Tensor):
        self.sink_k = sink_k
        self.sink_v = sink_v

    def forward_extend(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        pool = forward_batch.token_to_kv_pool
        k_buf = pool.get_key_buffer(layer.layer_id)
        v_buf = pool.get_value_buffer(layer.layer_id)
        keys = torch.concat([self.sink_k, k_buf.to(q.dtype)])  # positive: f5 CL001 whole key buffer inside torch.concat
        vals = torch.concat((self.sink_v, v_buf)).to(q.dtype)  # positive: f5 CL001 concat keeps the whole value buffer, then cast
        prefix = forward_batch.req_to_token_pool.req_to_token[forward_batch.req_pool_indices, : forward_batch.seq_lens.max()]
        used = torch.concat([self.sink_k, k_buf[prefix.flatten()]]).to(q.dtype)  # negative: request rows gathered first
        sinks = self.sink_k.to(q.dtype)  # negative: sink parameters
        return keys, vals, used, sinks
