import torch


class DenseLayerView:
    """Indexable per-layer view over a KVCacheManager in a compute dtype."""

    def __init__(self, kv_cache_manager, dtype=torch.float16):
        self.mgr = kv_cache_manager
        self.dtype = dtype

    def __getitem__(self, layer_idx):
        return self.mgr.get_buffers(layer_idx).to(self.dtype)  # positive: f7 CL001 whole layer converted in __getitem__, indexed from graph_runner.replay

    def __len__(self):
        return self.mgr.num_local_layers

    def blocks(self, layer_idx, block_ids):
        return self.mgr.get_buffers(layer_idx)[block_ids].to(self.dtype)  # negative: blocks gathered first
