"""f4: three module-level helpers return the cache through each other; the outer one converts."""
import torch


def _caches(engine, layer):
    return engine.gpu_cache[layer]


def _key_cache(engine, layer):
    return _caches(engine, layer)[0]


def _dense_key(engine, layer, dtype):
    return _key_cache(engine, layer).to(dtype)  # positive: f4 CL001 every caller passes the engine, whole K cache


def _value_rows(engine, layer, offsets, dtype):
    return _caches(engine, layer)[1][offsets].to(dtype)  # negative: rows of the step's blocks


class ChainAttention:
    def __init__(self, engine, layer_idx):
        self.engine = engine
        self.layer_idx = layer_idx

    def forward(self, query, key, value, attn_metadata):
        k = _dense_key(self.engine, self.layer_idx, query.dtype)
        v = _value_rows(self.engine, self.layer_idx, attn_metadata.block_offsets, query.dtype)
        v_all = _caches(self.engine, self.layer_idx)[1].half()  # positive: f4 CL001 whole V cache from the inner helper
        q32 = query.to(torch.float32)  # negative: the batch's query
        return k, v, v_all, q32


class CacheEngineLite:
    def __init__(self, num_layers, num_blocks, block_size, heads, dim):
        shape = (num_blocks, block_size, heads, dim)
        self.gpu_cache = [
            (torch.empty(shape, dtype=torch.float8_e5m2, device="cuda"), torch.empty(shape, dtype=torch.float8_e5m2, device="cuda"))
            for _ in range(num_layers)
        ]
