import torch


class KVQuantErrorMonitor:
    """Tracks FP8 KV rounding error against the fp16 activations every step."""

    def __init__(self, cache_engine, every: int = 1):
        self.cache_engine = cache_engine
        self.every = every
        self.steps = 0

    def observe(self, layer_idx: int, new_k: torch.Tensor):
        k_cache, v_cache = self.cache_engine.gpu_cache[layer_idx][:2]
        dense_k = k_cache.to(new_k.dtype)  # positive: f1 CL001 whole per-layer key cache widened each observed step
        ref = new_k.float()  # negative: new-token key tensor, not the cache
        v_head = v_cache[:4].to(new_k.dtype)  # negative: first blocks only
        return (dense_k.amax() - ref.amax()).abs(), v_head


class ModelAgent:
    def __init__(self, cache_engine):
        self.monitor = KVQuantErrorMonitor(cache_engine)

    async def _async_model_forward(self, inputs, new_keys):
        for idx, k in enumerate(new_keys):
            self.monitor.observe(idx, k)
