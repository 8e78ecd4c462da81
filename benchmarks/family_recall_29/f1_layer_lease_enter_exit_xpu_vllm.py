"""vLLM XPU (IPEX) paged attention fallback: a class-based context manager leases one layer's cache."""
import torch


class _LayerLease:
    def __init__(self, kv_cache: torch.Tensor, compute_dtype: torch.dtype):
        self.kv_cache = kv_cache
        self.compute_dtype = compute_dtype

    def __enter__(self):
        key_cache, value_cache = self.kv_cache.unbind(0)
        return key_cache.to(self.compute_dtype), value_cache.to(self.compute_dtype)  # positive: f1 CL001 __enter__ widens both whole caches of the layer, entered every forward

    def __exit__(self, *exc):
        return False

    def rows(self, block_ids: torch.Tensor):
        return self.kv_cache[:, block_ids].to(self.compute_dtype)  # negative: blocks gathered before the cast


class XPUPagedAttentionImpl:
    def __init__(self, kv_cache_dtype: str):
        self.kv_cache_dtype = kv_cache_dtype

    def forward(self, layer, query, key, value, kv_cache, attn_metadata, output):
        query = query.to(torch.bfloat16)  # negative: the query
        if attn_metadata.num_prefills:
            lease = _LayerLease(kv_cache, query.dtype)
            k, v = lease.rows(attn_metadata.block_table.flatten())
            return self._sdpa(query, k, v, attn_metadata)
        with _LayerLease(kv_cache, query.dtype) as (k, v):
            return self._paged(query, k, v, attn_metadata)
