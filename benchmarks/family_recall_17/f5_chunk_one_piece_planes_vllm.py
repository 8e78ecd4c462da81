"""vLLM [2, blocks, ...] cache: chunk into one piece is the whole cache; chunk(2) on dim 0
gives the planes; chunk on the block dim gives a share of the blocks."""
import torch


class ChunkingImpl:
    def __init__(self, num_heads, head_size, kv_cache_dtype):
        self.kv_cache_dtype = kv_cache_dtype

    def forward(self, layer, query, key, value, kv_cache, attn_metadata, output=None):
        whole = torch.chunk(kv_cache, 1)[0].to(query.dtype)  # positive: f5 CL001 one chunk is the whole cache
        key_plane, value_plane = kv_cache.chunk(2)
        key_plane = key_plane.to(query.dtype)  # positive: f5 CL001 the key plane keeps every block
        quarter = kv_cache.chunk(4, dim=1)[0].to(query.dtype)  # negative: a quarter of the blocks
        return self._ref(query, whole, key_plane, value_plane, quarter, output)

    def _ref(self, *tensors):
        return tensors[-1]
