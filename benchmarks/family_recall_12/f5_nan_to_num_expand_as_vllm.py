import torch


class SanitizingImpl:
    def __init__(self, num_heads, head_size, scale):
        self.scale = scale

    def forward(self, layer, query, key, value, kv_cache, attn_metadata, output=None):
        key_cache, value_cache = kv_cache.unbind(0)
        kc = key_cache.float().nan_to_num().to(query.dtype)  # positive: f5 CL001 fp32 nan_to_num of the whole key cache
        vc = value_cache.expand_as(value_cache).to(query.dtype)  # positive: f5 CL001 expand_as itself keeps the whole cache
        kn = key.nan_to_num().to(query.dtype)  # negative: the step's keys
        out = torch.zeros_like(query, dtype=torch.float32)  # negative: *_like allocation of the batch size
        return kc, vc, kn, out

    def do_kv_cache_update(self, layer, key, value, kv_cache, slot_mapping):
        key_cache, value_cache = kv_cache.unbind(0)
        key_cache.view(-1, key.shape[-1])[slot_mapping] = key.to(key_cache.dtype)  # negative: writer of the step's keys
