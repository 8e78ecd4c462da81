import torch


class ComputeViewKVCacheManager:
    """KV cache manager whose item access hands out compute-dtype layer views."""

    def __init__(self, impl, dtype, compute_dtype):
        self.impl = impl
        self.dtype = dtype
        self.compute_dtype = compute_dtype

    def get_buffers(self, layer_idx):
        return self.impl.get_primary_pool_data(layer_idx)

    def __getitem__(self, layer_idx):
        return self.get_buffers(layer_idx).to(self.compute_dtype)  # positive: f6 CL004 accessor converts the whole layer

    def get_scale(self, layer_idx):
        return self.impl.get_scale_data(layer_idx).float()  # negative: scale tensor

    def get_blocks(self, layer_idx, block_ids):
        return self.get_buffers(layer_idx)[block_ids].to(self.compute_dtype)  # negative: block gather


class TrtllmAttentionOnAmpere:
    def __init__(self, layer_idx):
        self.layer_idx = layer_idx

    def forward(self, q, k, v, attn_metadata):
        kv = attn_metadata.kv_cache_manager[self.layer_idx]  # note: per-step caller of __getitem__
        return q @ kv.flatten(0, 2).T
