import torch


class XPUPagedAttentionImpl:
    """Intel XPU: caches are HND [num_blocks, num_kv_heads, block_size, head_size]; the
    fallback kernel wants NHD in the query dtype."""

    def __init__(self, num_heads, head_size, scale, num_kv_heads, kv_cache_dtype, **kwargs):
        self.kv_cache_dtype = kv_cache_dtype
        self.scale = scale

    def forward(self, layer, query, key, value, kv_cache, attn_metadata, output=None):
        key_cache, value_cache = kv_cache.unbind(0)
        if self.kv_cache_dtype.startswith("fp8"):
            key_nhd = torch.swapdims(key_cache, 1, 2).to(query.dtype)  # positive: f5 CL001 whole key cache, swapdims keeps every block
            value_nhd = value_cache.swapdims(1, 2).to(query.dtype)  # positive: f5 CL001 whole value cache
        else:
            key_nhd, value_nhd = key_cache.swapdims(1, 2), value_cache.swapdims(1, 2)
        last = attn_metadata.block_table[:, -1]
        recent = key_cache[last].swapdims(1, 2).to(query.dtype)  # negative: last block of each sequence
        k_scale = layer._k_scale.to(query.dtype)  # negative: the scale
        return self._varlen_paged(query, key_nhd, value_nhd, recent, k_scale, attn_metadata, output)
