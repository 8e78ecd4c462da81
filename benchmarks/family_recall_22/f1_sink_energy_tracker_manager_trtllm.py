import torch


class SinkEnergyTracker:
    """Keeps per-layer value energy for attention-sink diagnostics."""

    def __init__(self, kv_cache_manager):
        self.kv_cache_manager = kv_cache_manager

    def layer_energy(self, layer_idx: int) -> torch.Tensor:
        buf = self.kv_cache_manager.get_buffers(layer_idx)
        values = buf[:, 1].to(torch.float32)  # positive: f1 CL001 value plane of the whole layer (every block) widened
        return values.square().sum(dim=(-1, -2))

    def block_energy(self, layer_idx: int, block_ids: torch.Tensor) -> torch.Tensor:
        buf = self.kv_cache_manager.get_buffers(layer_idx)
        picked = buf[block_ids, 1].to(torch.float32)  # negative: blocks selected before the cast
        return picked.square().sum()


class PyExecutor:
    def __init__(self, kv_cache_manager):
        self.tracker = SinkEnergyTracker(kv_cache_manager)

    def _forward_step(self, scheduled_requests, num_layers):
        return [self.tracker.layer_energy(i) for i in range(num_layers)]
