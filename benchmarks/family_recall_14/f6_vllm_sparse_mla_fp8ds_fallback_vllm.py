"""Sparse MLA with an fp8_ds_mla cache: a fallback that dequantizes the whole latent part."""
import torch


class FlashMLASparseFallbackImpl:
    def __init__(self, kv_cache_dtype, kv_lora_rank=512, has_fp8_sparse_kernel=False):
        self.kv_cache_dtype = kv_cache_dtype
        self.kv_lora_rank = kv_lora_rank
        self.has_fp8_sparse_kernel = has_fp8_sparse_kernel

    def forward(self, layer, q, k_c_normed, k_pe, kv_cache, attn_metadata, output=None):
        if self.kv_cache_dtype == "fp8_ds_mla" and not self.has_fp8_sparse_kernel:
            return self._forward_bf16_kv_dequant(q, kv_cache, attn_metadata, layer)
        return self._forward_fp8_kv(q, kv_cache, attn_metadata.topk_indices, attn_metadata)

    def _forward_bf16_kv_dequant(self, q, kv_cache, attn_metadata, layer):
        raw = kv_cache.view(torch.uint8)
        latent = raw[..., : self.kv_lora_rank].view(torch.float8_e4m3fn)  # negative: reinterpret only
        rope = raw[..., self.kv_lora_rank + 16 :].view(torch.bfloat16)  # negative: reinterpret only
        topk = attn_metadata.topk_indices
        if attn_metadata.gather_first:
            lat_rows = latent.flatten(0, 1)[topk.clamp_min(0)].to(torch.bfloat16)  # negative: top-k rows gathered first
            return self._sparse_bf16(q, lat_rows, rope, topk)
        wide = latent.to(torch.bfloat16)  # positive: f6 CL001 whole latent part (last-dim slice keeps every slot)
        return self._sparse_bf16(q, wide, rope, topk)
