import torch


class FlashMLAImpl:
    def __init__(self, num_heads, kv_lora_rank, quant_policy, native_fp8):
        self.num_heads = num_heads
        self.kv_lora_rank = kv_lora_rank
        self.quant_policy = quant_policy
        self.native_fp8 = native_fp8

    def _paged(self, k_cache, attn_metadata, dtype):
        return k_cache[attn_metadata.block_offsets].to(dtype)  # negative: block gather

    def _whole(self, k_cache, attn_metadata, dtype):
        return k_cache.to(dtype)  # positive: f4 CL001 whole latent cache, reader picked from a tuple by a bool

    def forward(self, query, key, value, k_cache, v_cache, attn_metadata, k_scales_zeros=None, v_scales_zeros=None):
        needs_dense = self.quant_policy == 8 and not self.native_fp8
        read = (self._paged, self._whole)[needs_dense]
        kv = read(k_cache, attn_metadata, query.dtype)
        seqlens = attn_metadata.kv_seqlens.to(torch.int32)  # negative: lengths
        return self._flash_mla(query, kv, seqlens, attn_metadata)
