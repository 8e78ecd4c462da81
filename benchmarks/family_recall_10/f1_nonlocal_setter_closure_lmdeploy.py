"""A closure pair: bind() rebinds a nonlocal cache list that read() returns later."""
import torch


def make_cache_slot():
    caches = None

    def bind(gpu_cache):
        nonlocal caches
        caches = gpu_cache

    def read(idx):
        return caches[idx]

    return bind, read


class SlotAttention:
    def __init__(self, cache_engine, layer_idx):
        self._bind, self._read = make_cache_slot()
        self._bind(cache_engine.gpu_cache)
        self.layer_idx = layer_idx
        self.lens = torch.zeros(8, dtype=torch.int32)

    def forward(self, query, key, value, attn_metadata):
        k_cache, v_cache = self._read(self.layer_idx)
        k = k_cache.to(query.dtype)  # positive: f1 CL001 whole K cache read back through a nonlocal closure
        v = v_cache.half()  # positive: f1 CL001 whole V cache read back through a nonlocal closure
        lens = self.lens.to(torch.int64)  # negative: per-request lengths
        return k, v, lens
