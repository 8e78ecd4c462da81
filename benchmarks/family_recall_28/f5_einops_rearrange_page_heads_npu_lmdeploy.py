"""lmdeploy Ascend NPU eager fallback: einops.rearrange moves heads before pages, then the cache is widened."""
import torch
from einops import rearrange


class AscendEagerPagedAttention:
    def __init__(self, num_heads, num_kv_heads, head_size, scale):
        self.num_heads = num_heads
        self.num_kv_heads = num_kv_heads
        self.scale = scale

    def forward(self, query, key, value, k_cache, v_cache, attn_metadata):
        if attn_metadata.is_decoding:
            k_all = rearrange(k_cache, "b p h d -> b h p d").to(query.dtype)  # positive: f5 CL001 rearrange keeps every block and slot
            v_all = rearrange(v_cache, "b p h d -> b h p d").to(query.dtype)  # positive: f5 CL001 same for the value cache
            return self._decode(query, k_all, v_all, attn_metadata)
        k_used = rearrange(k_cache[attn_metadata.block_offsets], "n b p h d -> n b h p d").to(query.dtype)  # negative: blocks gathered first
        q = rearrange(query, "t (h d) -> t h d", h=self.num_heads).to(torch.float32)  # negative: the query
        return self._prefill(q, key, value, k_used, attn_metadata)

    def _decode(self, query, k_all, v_all, attn_metadata):
        return torch.ops.npu.npu_incre_flash_attention(query, k_all, v_all, scale_value=self.scale)

    def _prefill(self, q, key, value, k_used, attn_metadata):
        return torch.ops.npu.npu_prompt_flash_attention(q, key, value, scale_value=self.scale)
