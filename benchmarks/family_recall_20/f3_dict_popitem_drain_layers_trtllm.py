import torch


class LayerwiseHostOffloader:
    """Collects finished layers during the step, then drains them to host in bf16."""

    def __init__(self, kv_cache_manager, host_pool):
        self.kv_cache_manager = kv_cache_manager
        self.host_pool = host_pool
        self.pending = {}

    def mark_done(self, layer_idx):
        self.pending[layer_idx] = self.kv_cache_manager.get_buffers(layer_idx)

    def drain(self, block_ids):
        while self.pending:
            layer_idx, buf = self.pending.popitem()
            self.host_pool[layer_idx].copy_(buf.to(torch.bfloat16), non_blocking=True)  # positive: f3 CL001 whole layer popped from the pending dict, converted per step
            self.host_pool[layer_idx][block_ids].copy_(buf[block_ids], non_blocking=True)  # negative: same-dtype block copy, no conversion


class PyExecutor:
    def __init__(self, model_engine, offloader):
        self.model_engine = model_engine
        self.offloader = offloader

    def _forward_step(self, scheduled_requests, new_tokens_device=None):
        out = self.model_engine.forward(scheduled_requests, new_tokens_device)
        for layer_idx in range(self.model_engine.num_layers):
            self.offloader.mark_done(layer_idx)
        self.offloader.drain(scheduled_requests.block_ids)
        return out
