import torch


class FlashAttentionImpl:
    def __init__(self, num_heads, head_size, scale, sliding_window=None, fp8_kernels=False):
        self.num_heads = num_heads
        self.head_size = head_size
        self.scale = scale
        self.sliding_window = sliding_window
        self.fp8_kernels = fp8_kernels

    def forward(self, query, key, value, k_cache, v_cache, attn_metadata, k_scales_zeros=None, v_scales_zeros=None, inplace=True):
        self._fill(key, value, k_cache, v_cache, attn_metadata)
        if attn_metadata.is_decoding:
            if not self.fp8_kernels and k_cache.dtype in (torch.float8_e4m3fn, torch.float8_e5m2):
                k_cache = k_cache.to(query.dtype)  # positive: f6 CL001 decode path without fp8 kernels upcasts the whole key cache
                v_cache = v_cache.to(query.dtype)  # positive: f6 CL001 decode path without fp8 kernels upcasts the whole value cache
            return self._paged_decode(query, k_cache, v_cache, attn_metadata)
        cu = attn_metadata.cu_seqlens_q.to(torch.int32)  # negative: cumulative lengths
        k_new = key.to(query.dtype)  # negative: the step's keys for the varlen prefill
        return self._varlen(query, k_new, value, cu)

    def _fill(self, *a):
        pass

    def _paged_decode(self, *a):
        return a[0]

    def _varlen(self, *a):
        return a[0]
