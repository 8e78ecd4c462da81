import torch


class TorchAttentionBackend:
    def __init__(self, kv_cache_manager, dtype):
        self.kv_cache_manager = kv_cache_manager
        self.dtype = dtype

    def read_layer(self, layer_idx):
        return self.kv_cache_manager.get_buffers(layer_idx)

    def read_rows(self, layer_idx, block_ids):
        return self.read_layer(layer_idx)[block_ids]

    def forward(self, q, layer_idx, block_ids, metadata):
        kv = self.read_layer(layer_idx)
        picked = self.read_rows(layer_idx, block_ids)
        return kv, picked


class VanillaFP8FallbackBackend(TorchAttentionBackend):
    """Vanilla SDPA path: FP8 managers are widened before torch SDPA."""

    def read_layer(self, layer_idx):
        buf = super().read_layer(layer_idx)
        if buf.dtype == self.dtype:
            return buf
        return buf.to(self.dtype)  # positive: f2 CL001 whole layer buffer; forward() calls this per step

    def read_rows(self, layer_idx, block_ids):
        rows = self.kv_cache_manager.get_buffers(layer_idx)[block_ids]
        return rows.to(self.dtype)  # negative: blocks first
