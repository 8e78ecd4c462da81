import torch

from .dequant import dense_planes, dense_blocks


class XPUNoFp8AttentionImpl:
    def __init__(self, num_heads, head_size, scale, kv_cache_dtype="fp8"):
        self.scale = scale
        self.kv_cache_dtype = kv_cache_dtype

    def forward(self, layer, query, key, value, kv_cache, attn_metadata, output=None):
        k, v = dense_planes(kv_cache, query.dtype, layer._k_scale_float, layer._v_scale_float)
        ctx = dense_blocks(kv_cache, attn_metadata.block_table[0], query.dtype)
        return k, v, ctx
