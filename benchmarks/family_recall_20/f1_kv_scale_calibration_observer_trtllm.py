import torch


class KVAmaxObserver:
    """Calibration observer: tracks the running amax of every KV layer for FP8 scale export."""

    def __init__(self, kv_cache_manager):
        self.manager = kv_cache_manager
        self.amax = {}

    def observe(self, layer_idx):
        buf = self.manager.get_buffers(layer_idx)
        cur = buf.to(torch.float32).abs().amax()  # positive: f1 CL001 whole layer widened by the observer holding the manager, every calibration step
        self.amax[layer_idx] = torch.maximum(self.amax.get(layer_idx, cur), cur)
        scale = self.manager.kv_scales[layer_idx].to(torch.float32)  # negative: a scale tensor, not the cache
        return scale


class CalibrationExecutor:
    def __init__(self, model_engine, kv_cache_manager):
        self.model_engine = model_engine
        self.observer = KVAmaxObserver(kv_cache_manager)

    def _forward_step(self, scheduled_requests, new_tokens_device=None):
        outputs = self.model_engine.forward(scheduled_requests, new_tokens_device)
        for layer_idx in self.model_engine.model.config.layer_indices:
            self.observer.observe(layer_idx)
        return outputs
