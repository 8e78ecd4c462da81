# vLLM-style paged caches split into planes with unbind/chunk/indexing before a conversion.
import torch

from vllm.v1.attention.backend import AttentionImpl


class PlaneUpcastImpl(AttentionImpl):
    def __init__(self, num_heads: int, head_size: int, scale: float, num_kv_heads: int, kv_cache_dtype: str = "auto"):
        self.num_heads = num_heads
        self.head_size = head_size
        self.scale = scale
        self.num_kv_heads = num_kv_heads
        self.kv_cache_dtype = kv_cache_dtype

    def forward(self, layer, query, key, value, kv_cache, attn_metadata, output=None, output_scale=None, output_block_scale=None):
        # flash-attn layout: [2, num_blocks, block_size, num_kv_heads, head_size]
        key_cache, value_cache = kv_cache.unbind(0)
        k32 = key_cache.to(torch.float32)  # positive: f5 CL001 K plane of the whole layer cache
        v_plane = torch.unbind(kv_cache, 0)[1].half()  # positive: f5 CL001 torch.unbind then the V plane
        k_chunk, v_chunk = kv_cache.chunk(2, dim=0)
        v_chunk16 = v_chunk.squeeze(0).to(query.dtype)  # positive: f5 CL001 chunk then squeeze of the V plane
        k0 = kv_cache[0].bfloat16()  # positive: f5 CL001 constant index of the convention's cache selects the K plane
        blocks = key_cache[attn_metadata.block_table].to(query.dtype)  # negative: blocks of the batch first
        fp8_view = key_cache.view(torch.float8_e4m3fn)  # negative: reinterpret
        key_c = key.to(key_cache.dtype)  # negative: key of this step
        return k32, v_plane, v_chunk16, k0, blocks, fp8_view, key_c
