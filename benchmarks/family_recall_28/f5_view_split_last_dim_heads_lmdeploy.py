"""lmdeploy MQA-packed cache: view(*shape[:-1], heads, -1) splits the last dim into heads, then the cache is widened."""
import torch


class PackedHeadsDecode:
    def __init__(self, num_kv_heads, head_size, dtype):
        self.num_kv_heads = num_kv_heads
        self.head_size = head_size
        self.dtype = dtype

    def forward(self, query, k_cache, v_cache, attn_metadata):
        # caches are [num_blocks, block_size, num_kv_heads * head_size]
        k_heads = k_cache.view(*k_cache.shape[:-1], self.num_kv_heads, -1).half()  # positive: f5 CL001 the head split keeps every block and slot
        v_heads = v_cache.view(*v_cache.shape[:-1], self.num_kv_heads, -1)
        v_used = v_heads[attn_metadata.block_offsets].half()  # negative: blocks gathered first
        k_raw = k_cache.view(torch.int8)  # negative: reinterpret, zero-copy
        out = torch.ops.lmdeploy.paged_decode(query.half(), k_heads, v_used, attn_metadata.kv_seqlens)
        return out.to(self.dtype), k_raw

    def update_step_context(self, ctx):
        ctx.kv_seqlens = ctx.kv_seqlens.to(torch.int32)  # negative: lengths
        return ctx
