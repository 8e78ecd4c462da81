"""lmdeploy: copy_ of a whole cache into a tensor allocated with another dtype is a
conversion; the allocation alone, or a same-dtype copy, is not."""
import torch


class CopyWidenImpl:
    def __init__(self, compute_dtype=torch.float16):
        self.compute_dtype = compute_dtype

    def forward(self, query, key, value, k_cache, v_cache, attn_metadata, k_scales_zeros=None, v_scales_zeros=None):
        k_dense = torch.empty_like(k_cache, dtype=self.compute_dtype).copy_(k_cache)  # positive: f5 CL001 whole key cache copied into fp16
        v_dense = torch.empty(v_cache.shape, dtype=self.compute_dtype, device=v_cache.device)
        v_dense.copy_(v_cache)  # positive: f5 CL001 whole value cache copied into fp16
        scratch = torch.empty_like(k_cache, dtype=self.compute_dtype)  # negative: allocation only
        mirror = torch.empty_like(k_cache).copy_(k_cache)  # negative: same dtype
        return self._ref(query, k_dense, v_dense, scratch, mirror)

    def _ref(self, *tensors):
        return tensors[0]
