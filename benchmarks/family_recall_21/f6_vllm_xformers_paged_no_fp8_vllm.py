import torch


class XFormersImpl:
    """xFormers backend on V100: prefix-cached prefill reads the paged cache through a torch path."""

    def __init__(self, num_heads, head_size, scale, kv_cache_dtype="fp8_e4m3"):
        self.num_heads = num_heads
        self.head_size = head_size
        self.scale = scale
        self.kv_cache_dtype = kv_cache_dtype

    def forward(self, layer, query, key, value, kv_cache, attn_metadata, output=None):
        key_cache, value_cache = kv_cache[0], kv_cache[1]
        if self.kv_cache_dtype.startswith("fp8"):
            key_cache = key_cache.view(torch.float8_e4m3fn).to(query.dtype)  # positive: f6 CL001 whole key plane (view then widen)
            value_cache = value_cache.view(torch.float8_e4m3fn).to(query.dtype)  # positive: f6 CL001 whole value plane
        k_new = key.to(query.dtype)  # negative: new-token keys
        ctx_blocks = attn_metadata.block_tables[attn_metadata.block_tables >= 0]
        ctx = kv_cache[0][ctx_blocks].view(torch.float8_e4m3fn).to(query.dtype)  # negative: context blocks gathered first
        k_scale = layer._k_scale.to(query.dtype)  # negative: scale
        return key_cache, value_cache, k_new, ctx, k_scale
