"""sglang Triton fallback: per-layer records (layer_id, k, v, *extras) unpacked with a starred rest."""
import torch


class TritonFp8RecordBackend:
    def __init__(self, model_runner):
        pool = model_runner.token_to_kv_pool
        self.records = [
            (lid, pool.get_key_buffer(lid), pool.get_value_buffer(lid), pool.k_scale, "full")
            for lid in range(pool.start_layer, pool.end_layer)
        ]
        self.base = pool.start_layer

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        lid, key, value, *rest = self.records[layer.layer_id - self.base]
        scale = rest[0]
        key = key.to(q.dtype)  # positive: f3 CL001 whole key buffer from the record
        value = value.to(q.dtype)  # positive: f3 CL001 whole value buffer from the record
        return q, key, value, scale

    def forward_extend(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        _, key, _, *_ = self.records[layer.layer_id - self.base]
        prefix = key[forward_batch.req_to_token_pool.req_to_token[0, :forward_batch.extend_prefix_lens[0]]]
        return q, prefix.to(q.dtype), k.to(q.dtype)  # negative: prefix rows gathered first; new tokens
