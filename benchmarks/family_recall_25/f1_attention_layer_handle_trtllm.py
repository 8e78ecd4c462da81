import torch


class LayerHandle:
    def __init__(self, manager, layer_idx):
        self._manager = manager
        self._layer_idx = layer_idx

    def buffers(self):
        return self._manager.get_buffers(self._layer_idx)

    def scales(self):
        return self._manager.kv_cache_scales[self._layer_idx]


class VanillaAttention:
    def __init__(self, layer_idx, compute_dtype=torch.bfloat16):
        self.layer_idx = layer_idx
        self.compute_dtype = compute_dtype

    def forward(self, q, k, v, metadata):
        handle = LayerHandle(metadata.kv_cache_manager, self.layer_idx)
        kv = handle.buffers()
        kv_dense = kv.to(self.compute_dtype)  # positive: f1 CL001 manager buffer fetched through a per-forward handle object
        scale = handle.scales().to(self.compute_dtype)  # negative: per-layer scales
        q = q.to(self.compute_dtype)  # negative: query
        return kv_dense, scale, q
