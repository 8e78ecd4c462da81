import torch


class KVDriftMonitor:
    """Accumulates all layers into one fp32 buffer to compare against a reference run."""

    def __init__(self, kv_cache_manager, num_layers):
        self.kv_cache_manager = kv_cache_manager
        self.num_layers = num_layers

    def _forward_step(self, scheduled_requests, new_tokens_device=None):
        acc = None
        for layer_idx in range(self.num_layers):
            buf = self.kv_cache_manager.get_buffers(layer_idx)
            if acc is None:
                acc = torch.zeros(buf.shape, dtype=torch.float32, device=buf.device)  # negative: allocation, no conversion of the cache
            acc += buf.float()  # positive: f5 CL001 whole layer widened inside an augmented assignment every step
        sample = torch.zeros((), dtype=torch.float32)
        for layer_idx in range(self.num_layers):
            sample += self.kv_cache_manager.get_buffers(layer_idx)[scheduled_requests.block_ids].float().sum()  # negative: blocks selected before the cast
        return acc, sample
