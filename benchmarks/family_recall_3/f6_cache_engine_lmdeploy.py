import torch


class CacheEngineLike:
    def __init__(self, num_layers, num_blocks, block_size, num_heads, head_dim, device):
        self.local_gpu_cache = [
            (
                torch.empty((num_blocks, block_size, num_heads, head_dim), dtype=torch.float8_e4m3fn, device=device),
                torch.empty((num_blocks, block_size, num_heads, head_dim), dtype=torch.float8_e4m3fn, device=device),
            )
            for _ in range(num_layers)
        ]

    def gpu_cache_for(self, layer_idx: int):
        return self.local_gpu_cache[layer_idx]

    @property
    def gpu_cache(self):
        return self.local_gpu_cache


class EngineAttention:
    def __init__(self, engine: CacheEngineLike, layer_idx: int):
        self.engine = engine
        self.layer_idx = layer_idx

    def forward(self, query, key, value, attn_metadata):
        k_cache, v_cache = self.engine.gpu_cache_for(self.layer_idx)
        k_cache = k_cache.to(query.dtype)  # positive: f6 CL001 custom cache-engine accessor
        v_cache = self.engine.gpu_cache[self.layer_idx][1].to(query.dtype)  # positive: f6 CL001 property listing every layer's cache
        return k_cache, v_cache
