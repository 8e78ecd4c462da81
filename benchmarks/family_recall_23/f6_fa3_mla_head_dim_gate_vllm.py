# vLLM v1 FlashAttention MLA backend: FP8 query only when head dim <= 256; MLA's latent+rope is 576.
import torch


class FlashAttnMLAImpl:
    def _forward_decode(self, q, kv_c_and_k_pe_cache, attn_metadata, layer):
        head_dim = self.kv_lora_rank + self.qk_rope_head_dim
        if self.kv_cache_dtype.startswith("fp8") and head_dim <= 256:
            q = q.to(kv_c_and_k_pe_cache.dtype)  # negative: query cast to the cache dtype
            cache = kv_c_and_k_pe_cache
        else:
            cache = kv_c_and_k_pe_cache.to(q.dtype)  # positive: f6 CL001 whole latent cache widened on the 576-dim path
        k_pe = kv_c_and_k_pe_cache[..., self.kv_lora_rank :]
        return self._fa_decode(q, cache, k_pe, attn_metadata, layer)
