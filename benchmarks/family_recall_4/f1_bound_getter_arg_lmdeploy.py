"""A bound cache-engine accessor is handed to module functions as an argument."""
import torch


class CacheEngine:
    def __init__(self, num_layers, num_blocks, block_size, num_heads, head_size, dtype, device):
        shape = (num_blocks, block_size, num_heads, head_size)
        self.gpu_cache = [
            (torch.empty(shape, dtype=dtype, device=device), torch.empty(shape, dtype=dtype, device=device))
            for _ in range(num_layers)
        ]
        self.block_size = block_size

    def layer_kv(self, layer_idx):
        return self.gpu_cache[layer_idx]


def _decode_with(getter, layer_idx, query):
    k_cache, v_cache = getter(layer_idx)
    k_full = k_cache.to(query.dtype)  # positive: f1 CL001 every caller passes the bound whole-layer accessor
    return k_full, v_cache


def _lens_of(ctx):
    return ctx.kv_seqlens.to(torch.int32)  # negative: per-sequence lengths


class BoundGetterAttention:
    def __init__(self, cache_engine: CacheEngine, layer_idx, scale):
        self.cache_engine = cache_engine
        self.layer_idx = layer_idx
        self.scale = scale

    def forward(self, query, key, value, attn_metadata, ctx, **kwargs):
        k_full, v_cache = _decode_with(self.cache_engine.layer_kv, self.layer_idx, query)
        v_full = self._finish(v_cache, dtype=query.dtype)
        lens = _lens_of(ctx)
        return self._attn(query, k_full, v_full, lens, attn_metadata.block_offsets)

    def run(self, query, key, value, attn_metadata, ctx):
        getter = self.cache_engine.layer_kv
        k_full, _ = _decode_with(getter, self.layer_idx, query)
        _, v_cache = getter(self.layer_idx)
        v_rows = v_cache[attn_metadata.block_offsets[0]].to(query.dtype)  # negative: one sequence's blocks gathered first
        return k_full, v_rows

    def _finish(self, v, dtype):
        return v.to(dtype)  # positive: f1 CL001 sole caller passes the whole v cache from the getter

    def _attn(self, q, k, v, lens, offsets):
        return torch.empty_like(q)
