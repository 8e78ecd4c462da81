import torch

from vllm.attention.backends.abstract import AttentionImpl


class SplitCacheImpl(AttentionImpl):
    def _split_cache(self, kv_cache: torch.Tensor):
        return kv_cache.unbind(0)

    def _block_rows(self, kv_cache: torch.Tensor, block_table: torch.Tensor):
        return kv_cache[:, block_table]


class TorchSDPAUpcastImpl(SplitCacheImpl):
    def forward(self, layer, query, key, value, kv_cache, attn_metadata, output=None, output_scale=None):
        key_cache, value_cache = self._split_cache(kv_cache)
        key_cache = key_cache.to(query.dtype)  # positive: f2 CL001 key plane of the whole kv_cache from base _split_cache
        value_cache = value_cache.to(query.dtype)  # positive: f2 CL001 value plane of the whole kv_cache
        used = self._block_rows(kv_cache, attn_metadata.block_table).to(query.dtype)  # negative: base gathers blocks first
        return key_cache, value_cache, used
