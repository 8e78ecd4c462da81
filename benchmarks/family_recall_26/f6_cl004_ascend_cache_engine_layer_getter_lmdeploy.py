import torch


class AscendCacheEngine:
    """Cache engine for an Ascend build whose attention op reads fp16 caches only."""

    def __init__(self, cache_config, model_config, num_layers, device="npu"):
        self.cache_config = cache_config
        self.kv_dtype = torch.int8 if cache_config.quant_policy == 8 else torch.float16
        shape = (cache_config.num_gpu_blocks, cache_config.block_size, model_config.num_key_value_heads, model_config.head_dim)
        self.gpu_cache = [
            (torch.empty(shape, dtype=self.kv_dtype, device=device), torch.empty(shape, dtype=self.kv_dtype, device=device))
            for _ in range(num_layers)
        ]
        self.scales = [torch.ones(shape[2], device=device) for _ in range(num_layers)]

    def layer_caches(self, idx):
        k, v = self.gpu_cache[idx]
        if self.kv_dtype != torch.float16:
            return k.to(torch.float16), v.to(torch.float16)  # positive: f6 CL004 cache-engine accessor returns the whole layer widened (one line)
        return k, v

    def layer_scales(self, idx):
        return self.scales[idx].to(torch.float16)  # negative: scales

    def swap_in(self, src_to_dst):
        for src, dst in src_to_dst.items():
            for k, v in self.gpu_cache:
                k[dst].copy_(k[src].to(k.dtype))  # negative: one block, same dtype
