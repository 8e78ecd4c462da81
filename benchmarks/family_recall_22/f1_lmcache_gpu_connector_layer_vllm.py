import torch


class VLLMPagedMemGPUConnector:
    """LMCache-style adapter: moves one layer between the paged cache and the host store."""

    def __init__(self, hidden_dim: int, store_dtype: torch.dtype):
        self.hidden_dim = hidden_dim
        self.store_dtype = store_dtype

    def from_gpu(self, kv_layer: torch.Tensor, slot_mapping: torch.Tensor):
        flat = kv_layer.flatten(1, 2)
        whole = flat.to(self.store_dtype)  # positive: f1 CL001 whole layer (blocks*block_size flattened) widened for the host store
        rows = flat[:, slot_mapping].to(self.store_dtype)  # negative: request slots gathered before the cast
        return whole, rows

    def scales(self, k_scale: torch.Tensor):
        return k_scale.to(self.store_dtype)  # negative: per-layer scale, not the cache


class LMCacheConnectorV1:
    def __init__(self, gpu_connector: VLLMPagedMemGPUConnector):
        self.gpu_connector = gpu_connector

    def save_kv_layer(self, layer_name, kv_layer, attn_metadata, **kwargs):
        self.gpu_connector.from_gpu(kv_layer, attn_metadata.slot_mapping)
        kv_layer.to("cpu", non_blocking=True)  # negative: device move only
