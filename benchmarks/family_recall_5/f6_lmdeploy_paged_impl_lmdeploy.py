"""lmdeploy pytorch attention impl: forward receives the layer's k_cache/v_cache."""

import torch


class RefPagedAttentionImpl:
    """Reference (non-Triton) impl used for quantized caches on unsupported devices."""

    def __init__(self, num_heads, head_size, scale, num_kv_heads, quant_policy=8):
        self.num_heads = num_heads
        self.head_size = head_size
        self.scale = scale
        self.num_kv_heads = num_kv_heads
        self.quant_policy = quant_policy

    def forward(self, query, key, value, k_cache, v_cache, attn_metadata, k_scales_zeros=None, v_scales_zeros=None, inplace=True):
        block_offsets = attn_metadata.block_offsets
        q_start_loc = attn_metadata.q_start_loc
        kv_seqlens = attn_metadata.kv_seqlens
        kf = k_cache.to(query.dtype)  # positive: f6 CL001 whole per-layer k_cache argument of the impl forward
        vf = v_cache.to(query.dtype)  # positive: f6 CL001 whole per-layer v_cache argument
        ksz = k_scales_zeros.to(query.dtype)  # negative: scales/zeros
        vsz = v_scales_zeros.to(query.dtype)  # negative: scales/zeros
        kk = key.to(k_cache.dtype)  # negative: batch key cast to the cache dtype (a writer's input)
        offs = block_offsets.to(torch.int64)  # negative: block offsets
        return self._attend(query, kk, kf, vf, ksz, vsz, offs, q_start_loc, kv_seqlens)

    def _attend(self, q, kk, kf, vf, ksz, vsz, offs, q_start_loc, kv_seqlens):
        return torch.ops.lmdeploy.ref_paged_attention(q, kk, kf, vf, ksz, vsz, offs, q_start_loc, kv_seqlens)


class GatheredRefImpl(RefPagedAttentionImpl):
    def forward(self, query, key, value, k_cache, v_cache, attn_metadata, k_scales_zeros=None, v_scales_zeros=None, inplace=True):
        offs = attn_metadata.block_offsets
        kg = k_cache[offs].to(query.dtype)  # negative: gather-then-cast
        vg = v_cache.index_select(0, offs.flatten()).to(query.dtype)  # negative: gather-then-cast
        return self._attend(query, key, kg, vg, k_scales_zeros, v_scales_zeros, offs, attn_metadata.q_start_loc, attn_metadata.kv_seqlens)
