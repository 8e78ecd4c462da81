# lmdeploy pytorch backends: a default paged-attention impl and a device variant without fp8 decode kernels.
import torch


class TritonPagedAttentionImpl:
    compute_dtype = torch.float16

    def _decode_caches(self, k_cache, v_cache, quant_policy):
        return k_cache, v_cache

    def forward(self, query, key, value, k_cache, v_cache, attn_metadata, k_scales_zeros=None,
                v_scales_zeros=None, inplace=True):
        k_cache, v_cache = self._decode_caches(k_cache, v_cache, attn_metadata.quant_policy)
        return self._paged_decode(query, k_cache, v_cache, attn_metadata)


class DlinferPagedAttentionImpl(TritonPagedAttentionImpl):
    compute_dtype = torch.bfloat16

    def _decode_caches(self, k_cache, v_cache, quant_policy):
        if quant_policy == 8:
            return (k_cache.to(self.compute_dtype),  # positive: f2 CL001 override widens the whole key cache
                    v_cache)
        return k_cache, v_cache.to(v_cache.dtype)  # negative: same dtype as the cache
