"""lmdeploy-style agent with a divergence checker over the last layers (a list prefix keeps whole caches)."""
import torch


class KVDivergenceChecker:
    def __init__(self, num_check=2):
        self.num_check = num_check
        self.history = []

    def check(self, gpu_cache, num_blocks_used):
        last_layers = list(reversed(gpu_cache))[: self.num_check]
        for k_cache, v_cache in last_layers:
            k = k_cache.half()  # positive: f3 CL001 list slice of layers keeps each whole key cache
            v = v_cache.to(torch.float16)  # positive: f3 CL001 whole value cache
            self.history.append((k.abs().max(), v.abs().max()))
        k0, _ = gpu_cache[-1]
        self.history.append(k0[:num_blocks_used].half().abs().max())  # negative: tensor prefix of used blocks


class ModelAgent:
    def __init__(self, model, cache_engine, check_divergence=False):
        self.model = model
        self.cache_engine = cache_engine
        self.checker = KVDivergenceChecker() if check_divergence else None

    async def _async_model_forward(self, inputs, swap_in_map, swap_out_map):
        output = self.model(inputs)
        if self.checker is not None:
            self.checker.check(self.cache_engine.gpu_cache, inputs.num_blocks_used)
        return output
