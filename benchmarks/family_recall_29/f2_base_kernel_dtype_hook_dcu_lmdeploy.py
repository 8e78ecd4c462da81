"""lmdeploy Hygon DCU impl: the base converts to whatever _kernel_dtype answers; the DCU subclass answers fp16."""
import torch


class TritonPagedAttentionImpl:
    def _kernel_dtype(self, cache: torch.Tensor) -> torch.dtype:
        return cache.dtype

    def forward(self, query, key, value, k_cache, v_cache, attn_metadata):
        if not attn_metadata.is_decoding:
            blocks = attn_metadata.block_offsets.flatten()
            k = k_cache[blocks].to(self._kernel_dtype(k_cache))  # negative: blocks gathered first
            return self._prefill(query, k, v_cache[blocks], attn_metadata)
        k = k_cache.to(self._kernel_dtype(k_cache))  # positive: f2 CL001 whole key cache; the DCU subclass makes this a real conversion
        v = v_cache.to(self._kernel_dtype(v_cache))  # positive: f2 CL001 whole value cache
        return self._paged_decode(query, k, v, attn_metadata)


class DCUPagedAttentionImpl(TritonPagedAttentionImpl):
    """gfx906/gfx928 DCUs: the decode kernel has no fp8/int8 KV path."""

    def _kernel_dtype(self, cache: torch.Tensor) -> torch.dtype:
        return torch.float16

    def forward(self, query, key, value, k_cache, v_cache, attn_metadata):
        query = query.to(torch.float16)  # negative: the query
        return super().forward(query, key, value, k_cache, v_cache, attn_metadata)
