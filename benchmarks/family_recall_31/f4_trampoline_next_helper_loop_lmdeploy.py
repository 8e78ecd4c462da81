# lmdeploy pytorch paged attention fallback: the decode path is a small state machine; each helper returns
# the next helper and the caches, and forward loops until a helper returns None as the next step.
import torch


class FallbackPagedAttention:
    def __init__(self, compute_dtype=torch.float16, kernel_fp8_kv=False):
        self.compute_dtype = compute_dtype
        self.kernel_fp8_kv = kernel_fp8_kv

    def _start(self, k_cache, v_cache, meta):
        if self.kernel_fp8_kv:
            return None, (k_cache, v_cache)
        return (self._widen if meta.is_decoding else self._gather), (k_cache, v_cache)

    def _widen(self, k_cache, v_cache, meta):
        return None, (k_cache.to(self.compute_dtype), v_cache.to(self.compute_dtype))  # positive: f4 CL001 both whole layer caches (one line), reached from the trampoline

    def _gather(self, k_cache, v_cache, meta):
        blocks = meta.block_offsets.flatten()
        return None, (k_cache[blocks].to(self.compute_dtype), v_cache[blocks].to(self.compute_dtype))  # negative: the batch's blocks

    def forward(self, query, k_cache, v_cache, attn_metadata):
        step, caches = self._start, (k_cache, v_cache)
        while step is not None:
            step, caches = step(*caches, attn_metadata)
        return self._attend(query, *caches, attn_metadata)
