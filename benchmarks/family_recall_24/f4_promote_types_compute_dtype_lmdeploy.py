# lmdeploy pytorch backend (default, no FP8 kernel): the compute dtype comes from a
# helper using torch.promote_types; the impl widens the caches to it.
import torch


def _compute_dtype(query: torch.Tensor, cache: torch.Tensor) -> torch.Tensor:
    if cache.dtype in (torch.float8_e4m3fn, torch.float8_e5m2):
        return query.dtype
    return torch.promote_types(query.dtype, cache.dtype)


class DefaultPagedAttentionImpl:
    def forward(self, query, key, value, k_cache, v_cache, attn_metadata, k_scales_zeros=None, v_scales_zeros=None):
        dtype = _compute_dtype(query, k_cache)
        k_cache = k_cache.to(dtype)  # positive: f4 CL001 whole key cache to the helper's dtype
        v_cache = v_cache.to(dtype)  # positive: f4 CL001 whole value cache to the helper's dtype
        if k_scales_zeros is not None:
            k_scales_zeros = k_scales_zeros.to(dtype)  # negative: scales and zeros
        q = query.to(dtype)  # negative: query
        return self._paged_sdpa(q, k_cache, v_cache, attn_metadata)
