import torch


class KvCacheConnectorWorker:
    """register_kv_caches gets one tensor laid out [num_blocks, num_layers, kv_factor, ...]."""

    def register_kv_caches(self, kv_cache_tensor: torch.Tensor):
        self.kv_cache_tensor = kv_cache_tensor
        self.num_layers = kv_cache_tensor.shape[1]
        self.by_layer = [kv_cache_tensor[:, i] for i in range(self.num_layers)]

    def save_kv_layer(self, layer_idx: int, stream):
        layer = self.by_layer[layer_idx]
        host = layer.to(torch.bfloat16).cpu()  # positive: f3 CL001 every block of one layer ([:, i] of the blocks-first tensor) from the per-layer list
        return host

    def save_block(self, block_id: int, stream):
        one_block = self.kv_cache_tensor[block_id]
        return one_block.to(torch.bfloat16).cpu()  # negative: tensor[i] is one block of every layer, not a pool layer

    def wait_for_save(self, stream):
        scales = [s.float() for s in getattr(self, "scale_tensors", [])]  # negative: scales
        return scales
