import torch


class FlashMLAImpl:
    """Target verify of DeepSeek MTP drafts: the fp8 FlashMLA path needs an fp8 query and has
    no multi-token verify variant here, so verify falls back to bf16 caches."""

    def __init__(self, num_heads, kv_lora_rank, scale, quant_policy, fp8_verify_kernel=False):
        self.num_heads = num_heads
        self.kv_lora_rank = kv_lora_rank
        self.scale = scale
        self.quant_policy = quant_policy
        self.fp8_verify_kernel = fp8_verify_kernel

    def forward(self, query, key, value, k_cache, v_cache, attn_metadata, k_scales_zeros=None, v_scales_zeros=None):
        if self.quant_policy == 8 and attn_metadata.is_verify and not self.fp8_verify_kernel:
            k = k_cache.to(query.dtype)  # positive: f6 CL001 whole latent cache in the verify fallback
            return self._bf16_flash_mla(query, k, attn_metadata)
        if self.quant_policy == 8:
            q8 = query.to(torch.float8_e4m3fn)  # negative: fp8 query in the native branch
            descale = k_scales_zeros.to(torch.float32)  # negative: the scale
            return self._fp8_flash_mla(q8, k_cache, descale, attn_metadata)
        draft_rows = k_cache[attn_metadata.block_offsets[:, -1]].to(query.dtype)  # negative: last block of each sequence
        return self._bf16_flash_mla(query, k_cache, attn_metadata, draft_rows)
