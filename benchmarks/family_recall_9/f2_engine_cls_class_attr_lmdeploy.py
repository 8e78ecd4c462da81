"""A `cache_engine_cls` class attribute picks the cache engine class a subclass agent builds."""
import torch


class CacheEngineBase:
    def __init__(self, num_layers, num_blocks, block_size, dtype=torch.float16):
        self.gpu_cache = [
            (torch.empty(num_blocks, block_size, 8, 128, dtype=dtype), torch.empty(num_blocks, block_size, 8, 128, dtype=dtype))
            for _ in range(num_layers)
        ]


class Int8CacheEngine(CacheEngineBase):
    def __init__(self, num_layers, num_blocks, block_size):
        super().__init__(num_layers, num_blocks, block_size, torch.int8)
        self.scales_zeros = [torch.ones(num_blocks, block_size, 8, 2) for _ in range(num_layers)]


class ModelAgentBase:
    cache_engine_cls = CacheEngineBase

    def __init__(self, cfg):
        self.cache_engine = self.cache_engine_cls(cfg.num_layers, cfg.num_blocks, cfg.block_size)


class Int8ModelAgent(ModelAgentBase):
    cache_engine_cls = Int8CacheEngine

    def forward(self, inputs, swap_in_map=None, swap_out_map=None):
        k0, v0 = self.cache_engine.gpu_cache[0]
        k_f = k0.float()  # positive: f2 CL001 K cache of the engine built from the class attribute
        v_f = self.cache_engine.gpu_cache[-1][1].to(torch.float16)  # positive: f2 CL001 V cache of the last layer
        sz = self.cache_engine.scales_zeros[0].to(torch.float16)  # negative: scales/zeros
        return k_f, v_f, sz
