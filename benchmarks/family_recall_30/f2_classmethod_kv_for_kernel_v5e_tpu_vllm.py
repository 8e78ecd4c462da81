"""vLLM TPU (Pallas): the base calls type(self)._kv_for_kernel; a v5e subclass without an FP8 KV kernel overrides the classmethod."""
import torch

from vllm.v1.attention.backends.pallas import PallasAttentionBackendImpl


class PallasImplBase(PallasAttentionBackendImpl):
    @classmethod
    def _kv_for_kernel(cls, kv_cache, dtype):
        return kv_cache

    def forward(self, layer, query, key, value, kv_cache, attn_metadata, output=None):
        kv = type(self)._kv_for_kernel(kv_cache, query.dtype)
        new_kv = torch.cat([key, value], dim=-1).to(kv_cache.dtype)  # negative: new tokens for the cache write
        probe = kv_cache[attn_metadata.block_tables[:, 0]].to(query.dtype)  # negative: first block per request
        return self._ragged_paged(query, kv, new_kv, probe, attn_metadata)


class PallasV5eNoFp8Impl(PallasImplBase):
    @classmethod
    def _kv_for_kernel(cls, kv_cache, dtype):
        return kv_cache.to(dtype)  # positive: f2 CL001 whole TPU layer cache (the v5e kernel has no FP8 KV read)
