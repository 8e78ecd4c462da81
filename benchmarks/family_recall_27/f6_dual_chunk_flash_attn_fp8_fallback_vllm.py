import torch


class DualChunkFlashAttentionImpl:
    """Long-context dual-chunk attention: the intra/succ/inter kernels have no fp8 cache path."""

    def __init__(self, num_heads, head_size, scale, num_kv_heads, kv_cache_dtype, dual_chunk_attention_config):
        self.kv_cache_dtype = kv_cache_dtype
        self.chunk_size = dual_chunk_attention_config["chunk_size"]
        self.scale = scale

    def forward(self, layer, query, key, value, kv_cache, attn_metadata, output=None):
        key_cache, value_cache = kv_cache.unbind(0)
        if self.kv_cache_dtype.startswith("fp8"):
            key_cache = key_cache.to(query.dtype)  # positive: f6 CL001 whole key cache of the layer
            value_cache = value_cache.to(query.dtype)  # positive: f6 CL001 whole value cache
        succ = attn_metadata.block_tables[:, : self.chunk_size // key_cache.shape[1]]
        succ_k = kv_cache[0][succ].to(query.dtype)  # negative: the successor chunk's blocks
        query_succ = (query * self.scale).to(query.dtype)  # negative: the query
        return self._dual_chunk(query_succ, key_cache, value_cache, succ_k, attn_metadata, output)
