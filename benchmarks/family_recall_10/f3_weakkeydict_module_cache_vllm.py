"""A WeakKeyDictionary maps attention modules to their caches; looked up with the layer module."""
import weakref

import torch


class ModuleCacheMap:
    def __init__(self):
        self.by_module = weakref.WeakKeyDictionary()
        self.by_module_lens = weakref.WeakKeyDictionary()

    def bind(self, modules, runner):
        for m, c in zip(modules, runner.kv_caches):
            self.by_module[m] = c
            self.by_module_lens[m] = torch.zeros(4, dtype=torch.int32)


class WeakKeyImpl:
    def __init__(self, cache_map: ModuleCacheMap):
        self.cache_map = cache_map

    def forward(self, layer, query, key, value, kv_cache, attn_metadata, output=None):
        cache = self.cache_map.by_module[layer]
        dense = cache.to(query.dtype)  # positive: f3 CL001 layer cache from a WeakKeyDictionary
        lens = self.cache_map.by_module_lens.get(layer).to(torch.int64)  # negative: per-module lengths
        return dense, lens
