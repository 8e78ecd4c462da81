# The agent reads caches through the engine defined in .cache_engine.
import torch

from .cache_engine import MiniCacheEngine
from . import records


class MiniModelAgent:
    def __init__(self, cache_engine: MiniCacheEngine):
        self.cache_engine = cache_engine

    def debug_snapshot(self, layer_idx: int):
        k_cache, v_cache = self.cache_engine.gpu_cache[layer_idx]
        k32 = k_cache.float()  # positive: f7 CL001 property gpu_cache of the engine class in another module
        rec = self.cache_engine.record(layer_idx)
        v16 = rec.v_cache.to(torch.float16)  # positive: f7 CL001 dataclass from .records built by the engine with the whole v cache
        return k32, v16

    def step(self, query: torch.Tensor, key: torch.Tensor, layer_idx: int, block_offsets: torch.Tensor):
        rec = self.cache_engine.record(layer_idx)
        used = rec.k_cache[block_offsets].to(query.dtype)  # negative: this step's blocks
        tmp = records.CacheRecord(layer_idx=-1, k_cache=key, v_cache=key)
        key16 = tmp.k_cache.half()  # negative: record over the step's key
        return used, key16
