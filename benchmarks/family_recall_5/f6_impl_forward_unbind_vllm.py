"""vLLM AttentionImpl.forward receives the whole layer kv_cache."""

import torch


class UpcastFallbackImpl:
    """A reference fallback for fp8 caches on GPUs without fp8 attention kernels."""

    def __init__(self, num_heads, head_size, scale, num_kv_heads, kv_cache_dtype):
        self.num_heads = num_heads
        self.head_size = head_size
        self.scale = scale
        self.num_kv_heads = num_kv_heads
        self.kv_cache_dtype = kv_cache_dtype

    def forward(self, layer, query, key, value, kv_cache, attn_metadata, output, output_scale=None, output_block_scale=None):
        if attn_metadata is None:
            return output.fill_(0)
        key_cache, value_cache = kv_cache.unbind(0)
        torch.ops._C_cache_ops.reshape_and_cache_flash(key, value, key_cache, value_cache, attn_metadata.slot_mapping, self.kv_cache_dtype, layer._k_scale, layer._v_scale)
        kc = key_cache.to(query.dtype) * layer._k_scale  # positive: f6 CL001 whole key cache of the layer upcast in forward
        vc = value_cache.to(query.dtype) * layer._v_scale  # positive: f6 CL001 whole value cache upcast in forward
        ks = layer._k_scale.to(query.dtype)  # negative: per-layer scale
        kk = key.to(kv_cache.dtype)  # negative: batch key
        n = attn_metadata.num_actual_tokens
        torch.ops._C.ref_paged_attention(output[:n], query[:n], kc, vc, attn_metadata.block_table, attn_metadata.seq_lens, ks, kk)
        return output


class GatherFallbackImpl(UpcastFallbackImpl):
    def forward(self, layer, query, key, value, kv_cache, attn_metadata, output, output_scale=None, output_block_scale=None):
        bt = attn_metadata.block_table
        kb = kv_cache[0][bt].to(query.dtype)  # negative: gather-then-cast of the batch's blocks
        vb = kv_cache[1, bt].to(query.dtype)  # negative: gather-then-cast of the batch's blocks
        raw = kv_cache.view(torch.uint8)  # negative: reinterpret
        torch.ops._C.ref_paged_attention(output, query, kb, vb, raw)
        return output
