import torch


class CacheProvider:
    """Callable handed to attention modules; returns the live (k_cache, v_cache) of one layer."""

    def __init__(self, cache_engine):
        self._engine = cache_engine

    def __call__(self, layer_idx):
        return self._engine.gpu_cache[layer_idx]


class PagedAttentionNoQuantKernel(torch.nn.Module):
    def __init__(self, layer_idx, provider, compute_dtype=torch.float16):
        super().__init__()
        self.layer_idx = layer_idx
        self.provider = provider
        self.compute_dtype = compute_dtype

    def forward(self, query, key, value, attn_metadata):
        k_cache, v_cache = self.provider(self.layer_idx)
        k_dense = k_cache.to(self.compute_dtype)  # positive: f1 CL001 whole int8 key cache of the layer, obtained by calling the provider object
        v_dense = v_cache.half()  # positive: f1 CL001 whole value cache of the layer
        fresh = key.to(self.compute_dtype)  # negative: the step's new key tokens
        tail = v_cache[attn_metadata.block_offsets[:, -1]].half()  # negative: blocks indexed before the cast
        return k_dense, v_dense, fresh, tail
