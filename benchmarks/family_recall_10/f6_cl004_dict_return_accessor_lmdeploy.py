"""An lmdeploy cache engine accessor returning a dict of converted whole caches (CL004)."""
import torch


class DenseCacheEngine:
    def __init__(self, gpu_cache, dtype):
        self.gpu_cache = gpu_cache
        self.dtype = dtype
        self.block_size = 64

    def get_dense_caches(self, layer_idx):
        k_cache, v_cache = self.gpu_cache[layer_idx]
        return {
            "k": k_cache.to(self.dtype),  # positive: f6 CL004 accessor converts the whole K cache
            "v": v_cache.to(self.dtype),  # positive: f6 CL004 accessor converts the whole V cache
        }

    def get_block_bytes(self):
        return torch.tensor(self.block_size).to(torch.int64)  # negative: a scalar


class DictAccessorAttention:
    def forward(self, query, key, value, attn_metadata):
        caches = attn_metadata.cache_engine.get_dense_caches(attn_metadata.layer_idx)  # note: per-step caller of the CL004 accessor
        return caches["k"], key.to(caches["k"].dtype)  # negative: this step's keys
