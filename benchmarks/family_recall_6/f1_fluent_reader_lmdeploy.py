"""A fluent reader: reader.layer(i).keys() returns whole caches; .window(n) gathers."""
import torch


class FluentCacheReader:
    def __init__(self, gpu_cache):
        self._cache = gpu_cache
        self._idx = 0
        self._blocks = None

    def layer(self, idx):
        self._idx = idx
        self._blocks = None
        return self

    def window(self, block_offsets):
        self._blocks = block_offsets
        return self

    def keys(self):
        k = self._cache[self._idx][0]
        return k if self._blocks is None else k[self._blocks]

    def values(self):
        v = self._cache[self._idx][1]
        return v if self._blocks is None else v[self._blocks]


class ModelAgentLite:
    def __init__(self, cache_engine):
        self.reader = FluentCacheReader(cache_engine.gpu_cache)

    def forward(self, inputs, layer_idx, dtype=torch.float16):
        k = self.reader.layer(layer_idx).keys().to(dtype)  # positive: f1 CL001 the layer's whole key cache
        v = self.reader.layer(layer_idx).values().float()  # positive: f1 CL001 the layer's whole value cache
        kw = self.reader.layer(layer_idx).window(inputs.block_offsets).keys().to(dtype)  # negative: blocks of this batch
        pos = inputs.position_ids.to(torch.int64)  # negative: positions
        kv_same = self.reader.layer(layer_idx).keys().to(torch.int8)  # note: the own dtype only if the engine stores int8 KV; not provable in this file
        return k, v, kw, pos
