import torch

from .base_impl import TritonImplBase


class TuringTritonImpl(TritonImplBase):
    """SM75: no fp8 support in the Triton kernel, so the cache is read in the query dtype.
    TritonImplBase.forward (base_impl.py) calls the two hooks below on every step."""

    def _cache_for_kernel(self, kv_cache, query):
        if self.kv_cache_dtype.startswith("fp8"):
            return kv_cache.to(query.dtype)  # positive: f7 CL001 whole layer cache, reached from base_impl.TritonImplBase.forward
        return kv_cache

    def _scale_for_kernel(self, layer, query):
        return layer._k_scale.to(query.dtype)  # negative: the scale

    def _recent_blocks(self, kv_cache, block_table, query):
        return kv_cache[:, block_table[:, -1]].to(query.dtype)  # negative: last block of each sequence
