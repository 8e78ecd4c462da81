import torch

from .reader import CacheReader


class TorchFallbackImpl:
    def __init__(self, kv_cache_dtype: str, model_dtype: torch.dtype):
        self.kv_cache_dtype = kv_cache_dtype
        self.model_dtype = model_dtype

    def forward(self, layer, query, key, value, kv_cache, attn_metadata, output=None):
        reader = CacheReader.for_dtype(query.dtype)
        if attn_metadata.num_prefills:
            return reader.read_blocks(kv_cache, attn_metadata.block_table.flatten())
        key_cache, value_cache = reader.read(kv_cache)
        k_scale = layer._k_scale.to(self.model_dtype)  # negative: scale
        return key_cache, value_cache, k_scale
