"""lmdeploy Cambricon MLU cache engine: its get_layer_kv accessor returns the whole layer converted (CL004)."""
import torch


class MluCacheEngine:
    def __init__(self, cache_config, model_config, num_layers):
        self.cache_config = cache_config
        self.num_layers = num_layers
        self.compute_dtype = model_config.dtype
        self.kv_dtype = torch.int8 if cache_config.quant_policy == 8 else model_config.dtype
        self.gpu_cache = self.allocate_gpu_cache()

    def allocate_gpu_cache(self):
        shape = (self.cache_config.num_gpu_blocks, self.cache_config.block_size, 8, 128)
        return [(torch.empty(shape, dtype=self.kv_dtype, device="mlu"), torch.empty(shape, dtype=self.kv_dtype, device="mlu")) for _ in range(self.num_layers)]  # negative: allocation

    def get_layer_kv(self, layer_idx):
        k_cache, v_cache = self.gpu_cache[layer_idx]
        return k_cache.to(self.compute_dtype), v_cache.to(self.compute_dtype)  # positive: f6 CL004 the engine's accessor converts both whole layer caches (one finding)

    def get_layer_blocks(self, layer_idx, block_offsets):
        k_cache, v_cache = self.gpu_cache[layer_idx]
        return k_cache[block_offsets].to(self.compute_dtype), v_cache[block_offsets].to(self.compute_dtype)  # negative: blocks gathered first

    def swap_out(self, src_to_dst):
        for k_cache, v_cache in self.gpu_cache:
            k_cache.to("cpu")  # negative: device move (no dtype change)
