# lmdeploy pytorch backends: the CUDA backend's attention builder; a Turing backend
# subclass returns a builder whose impl widens the paged caches before the kernel.
import torch


class TritonAttentionImpl:
    def forward(self, query, key, value, k_cache, v_cache, attn_metadata, k_scales_zeros=None, v_scales_zeros=None):
        k_cache, v_cache = self._kernel_caches(k_cache, v_cache)
        query = query.half()  # negative: query
        return self._paged_attention_fwd(query, k_cache, v_cache, attn_metadata)

    def _kernel_caches(self, k_cache, v_cache):
        return k_cache, v_cache


class TuringAttentionImpl(TritonAttentionImpl):
    def _kernel_caches(self, k_cache, v_cache):
        if k_cache.dtype == torch.float8_e4m3fn:
            return k_cache.half(), v_cache.half()  # positive: f2 CL001 both whole caches in the override
        return k_cache, v_cache


class CudaOpsBackend:
    impl_cls = TritonAttentionImpl

    @classmethod
    def build_attention(cls, **kwargs):
        return cls.impl_cls(**kwargs)


class TuringOpsBackend(CudaOpsBackend):
    impl_cls = TuringAttentionImpl
