import torch


class CacheEngine:
    def __init__(self, cache_config, model_config):
        self.cache_config = cache_config
        self.gpu_cache = self._allocate(model_config.num_layers)
        self.scales = [torch.ones(1) for _ in self.gpu_cache]

    def _allocate(self, num_layers):
        shape = (self.cache_config.num_gpu_blocks, self.cache_config.block_size, 8, 128)
        return [(torch.empty(shape, dtype=torch.int8), torch.empty(shape, dtype=torch.int8)) for _ in range(num_layers)]

    def layer_caches_fp16(self, idx):
        k, v = self.gpu_cache[idx]
        s = self.scales[idx].half()  # negative: scale
        return k.half() * s, v.half() * s  # positive: f6 CL004 accessor returns both whole int8 caches of the layer converted

    def layer_block_count(self, idx):
        return torch.tensor(self.gpu_cache[idx][0].shape[0]).to(torch.int32)  # negative: a count


class EngineAttention:
    def forward(self, query, attn_metadata, cache_engine, layer_idx):
        k16, v16 = cache_engine.layer_caches_fp16(layer_idx)  # note: per-step caller of the CL004 accessor
        return k16, v16, cache_engine.layer_block_count(layer_idx)
