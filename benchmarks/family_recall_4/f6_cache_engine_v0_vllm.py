"""A v0-style worker: per-virtual-engine cache engines, each with a gpu_cache list of layers."""
import torch


class CacheEngine:
    def __init__(self, cache_config, model_config, parallel_config, device_config):
        self.num_layers = model_config.get_num_layers(parallel_config)
        self.block_size = cache_config.block_size
        self.num_gpu_blocks = cache_config.num_gpu_blocks
        self.gpu_cache = self._allocate_kv_cache(self.num_gpu_blocks, "cuda")
        self.cpu_cache = self._allocate_kv_cache(cache_config.num_cpu_blocks, "cpu")

    def _allocate_kv_cache(self, num_blocks, device):
        shape = (2, num_blocks, self.block_size, 8, 128)
        return [torch.zeros(shape, dtype=torch.float8_e4m3fn, device=device) for _ in range(self.num_layers)]


class V0Worker:
    def __init__(self, cache_config, model_config, parallel_config, device_config):
        pp = parallel_config.pipeline_parallel_size
        self.cache_engine = [CacheEngine(cache_config, model_config, parallel_config, device_config) for _ in range(pp)]
        self.gpu_cache = [self.cache_engine[ve].gpu_cache for ve in range(pp)]

    def _snapshot_layers(self, kv_caches):
        return [c.to(torch.bfloat16) for c in kv_caches]  # positive: f6 CL001 every layer's whole gpu cache converted

    def execute_model(self, execute_model_req=None):
        ve = execute_model_req.virtual_engine
        snaps = self._snapshot_layers(self.gpu_cache[ve]) if execute_model_req.debug_kv else None
        first = self.cache_engine[ve].gpu_cache[0].half()  # positive: f6 CL001 cache engine gpu_cache[layer]
        swap_in = torch.tensor(execute_model_req.blocks_to_swap_in, dtype=torch.int64).to(torch.int32)  # negative: swap list
        cpu_copy = self.cache_engine[ve].cpu_cache[0].to("cuda")  # negative: device move only
        return snaps, first, swap_in, cpu_copy

    def _swap(self, ve, blocks_to_swap_out):
        engine = self.cache_engine[ve]
        for src, dst in zip(engine.gpu_cache, engine.cpu_cache):
            dst[:, blocks_to_swap_out[:, 1]] = src[:, blocks_to_swap_out[:, 0]].to("cpu")  # negative: gathered blocks, device move
        return len(engine.gpu_cache)

    def num_blocks(self, ve):
        return self.cache_engine[ve].num_gpu_blocks
