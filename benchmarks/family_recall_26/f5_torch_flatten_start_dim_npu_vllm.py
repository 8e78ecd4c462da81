import torch


class NPUTorchAttentionImpl:
    """Fallback for a CANN build without quantized-KV paged attention."""

    def __init__(self, num_heads, head_size, scale, num_kv_heads, kv_cache_dtype):
        self.num_heads, self.head_size, self.scale = num_heads, head_size, scale
        self.num_kv_heads = num_kv_heads
        self.kv_cache_dtype = kv_cache_dtype

    def forward(self, layer, query, key, value, kv_cache, attn_metadata, output=None):
        key_cache, value_cache = kv_cache[0], kv_cache[1]
        if self.kv_cache_dtype == "auto":
            return self._run(query, key_cache, value_cache, attn_metadata)
        k_flat = torch.flatten(key_cache, start_dim=0, end_dim=1).to(query.dtype)  # positive: f5 CL001 blocks x slots flattened, every slot kept, then cast
        v_flat = torch.flatten(value_cache, 0, 1).to(query.dtype)  # positive: f5 CL001 value plane, same
        slots = attn_metadata.slot_mapping
        k_new = torch.flatten(key_cache, 0, 1)[slots].to(query.dtype)  # negative: slots selected before the cast
        return self._run(query, k_flat, v_flat, attn_metadata, k_new)

    def _run(self, *args):
        return args
