import torch


class FlashInferMLAImplLite:
    def __init__(self, num_heads, kv_cache_dtype, model_dtype, native_fp8):
        self.num_heads = num_heads
        self.kv_cache_dtype = kv_cache_dtype
        self.model_dtype = model_dtype
        self.native_fp8 = native_fp8

    def _plan(self, wrapper, meta):
        if self.native_fp8:
            wrapper.plan(meta.qo_indptr, meta.kv_indptr, meta.kv_indices, meta.kv_lens, self.num_heads, 512, 64, meta.page_size, False, meta.sm_scale, self.model_dtype, self.kv_cache_dtype)  # negative: kv planned with the FP8 cache dtype
        else:
            wrapper.plan(meta.qo_indptr, meta.kv_indptr, meta.kv_indices, meta.kv_lens, self.num_heads, 512, 64, meta.page_size, False, meta.sm_scale, self.model_dtype, self.model_dtype)  # positive: f6 CL002 fallback plan with the model dtype for kv

    def forward_mqa(self, q, kv_c_and_k_pe_cache, attn_metadata, layer):
        self._plan(attn_metadata.decode.wrapper, attn_metadata.decode)
        cache = kv_c_and_k_pe_cache
        if not self.native_fp8:
            cache = cache.to(self.model_dtype)  # positive: f6 CL001 whole latent cache upcast for the fallback plan
        ckv, kpe = cache[..., :512], cache[..., 512:]
        scale = layer._k_scale_float if self.native_fp8 else 1.0
        return ckv, kpe, scale
