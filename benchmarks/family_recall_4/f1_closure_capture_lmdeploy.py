"""Closures capture the cache engine's per-layer tensors; attention calls them each step."""
import torch


def make_layer_reader(gpu_cache):
    def read(layer_idx):
        return gpu_cache[layer_idx]

    return read


def make_value_upcaster(gpu_cache, compute_dtype):
    def upcast_values(layer_idx):
        _, v = gpu_cache[layer_idx]
        return v.to(compute_dtype)  # positive: f1 CL001 closure reads the captured whole v cache itself

    return upcast_values


def make_len_reader(step_ctx):
    def lens():
        return step_ctx.kv_seqlens

    return lens


class ClosureAttentionImpl:
    def __init__(self, cache_engine, layer_idx, num_heads, head_size, compute_dtype=torch.float16):
        self.layer_idx = layer_idx
        self.num_heads = num_heads
        self.head_size = head_size
        self.read = make_layer_reader(cache_engine.gpu_cache)
        self.upcast_values = make_value_upcaster(cache_engine.gpu_cache, compute_dtype)
        warm_k, _ = self.read(layer_idx)
        self.probe = warm_k.to(compute_dtype)  # negative: __init__-time conversion

    def forward(self, query, key, value, attn_metadata, step_ctx, **kwargs):
        k_cache, v_cache = self.read(self.layer_idx)
        blob = k_cache.to(query.dtype)  # positive: f1 CL001 closure returns the captured whole k cache
        vals = self.upcast_values(self.layer_idx)
        kv_lens = make_len_reader(step_ctx)().to(torch.int32)  # negative: per-sequence lengths
        key = key.to(k_cache.dtype)  # negative: batch key cast to the cache dtype
        picked = v_cache[attn_metadata.block_offsets.flatten()].to(query.dtype)  # negative: blocks gathered first
        return self._paged(query, blob, vals, kv_lens, picked)

    def _paged(self, query, k, v, lens, extra):
        out = torch.empty_like(query)
        return out
