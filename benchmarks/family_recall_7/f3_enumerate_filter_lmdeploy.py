"""f3: the layer's cache picked by a filtered comprehension over enumerate() and by next() on a generator."""
import torch


class FilterAttention:
    def __init__(self, cache_engine, layer_idx):
        self.cache_engine = cache_engine
        self.layer_idx = layer_idx

    def forward(self, query, key, value, attn_metadata):
        caches = self.cache_engine.gpu_cache
        mine = [kv for j, kv in enumerate(caches) if j == self.layer_idx][0]
        k_full = mine[0].to(query.dtype)  # positive: f3 CL001 filtered comprehension keeps whole layer
        v_full = next(kv[1] for j, kv in enumerate(caches) if j == self.layer_idx).float()  # positive: f3 CL001 next() over a generator
        offsets = [b for b in attn_metadata.block_offsets]
        rows = mine[0][offsets[0]].to(query.dtype)  # negative: one request's blocks
        lens = attn_metadata.kv_seqlens.to(torch.int64)  # negative: lengths
        return k_full, v_full, rows, lens


class CacheEngineLite:
    def __init__(self, num_layers, num_blocks, block_size, heads, dim):
        self.gpu_cache = [
            (
                torch.empty((num_blocks, block_size, heads, dim), dtype=torch.int8, device="cuda"),
                torch.empty((num_blocks, block_size, heads, dim), dtype=torch.int8, device="cuda"),
            )
            for _ in range(num_layers)
        ]
