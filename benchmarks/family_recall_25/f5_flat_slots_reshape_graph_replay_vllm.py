import torch


class XPUGraphReplayAttention:
    """XPU graph replay: the ipex varlen kernel reads [slots, heads, dim] in the model dtype."""

    def __init__(self, num_kv_heads, head_size, dtype=torch.bfloat16):
        self.num_kv_heads = num_kv_heads
        self.head_size = head_size
        self.dtype = dtype

    def forward(self, layer, query, key, value, kv_cache, attn_metadata, output=None):
        key_cache, value_cache = kv_cache.unbind(0)
        flat_k = key_cache.reshape(-1, self.num_kv_heads, self.head_size)
        flat_v = value_cache.reshape(-1, self.num_kv_heads, self.head_size)
        k = flat_k.to(self.dtype)  # positive: f5 CL001 all slots of the key plane after reshape
        v = flat_v.to(self.dtype)  # positive: f5 CL001 all slots of the value plane after reshape
        new_k = flat_k[attn_metadata.slot_mapping].to(self.dtype)  # negative: new slots gathered first
        return k, v, new_k, query.to(self.dtype)  # negative: query
