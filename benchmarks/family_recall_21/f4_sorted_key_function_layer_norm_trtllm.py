import torch


class OffloadOrderPolicy:
    """Offloads the layers with the smallest KV energy first."""

    def __init__(self, kv_cache_manager, num_layers):
        self.manager = kv_cache_manager
        self.num_layers = num_layers

    def _energy(self, layer_idx):
        return float(self.manager.get_buffers(layer_idx).float().square().mean())  # positive: f4 CL001 whole layer inside a sort key function

    def _block_energy(self, layer_idx, block_ids):
        return float(self.manager.get_buffers(layer_idx)[block_ids].float().square().mean())  # negative: blocks first

    def _forward_step(self, scheduled_requests, block_ids=None):
        if block_ids is None:
            order = sorted(range(self.num_layers), key=self._energy)
        else:
            order = sorted(range(self.num_layers), key=lambda i: self._block_energy(i, block_ids))
        return order
