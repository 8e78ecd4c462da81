import torch


class ClusterKVSelector:
    """Assigns every cached key to its nearest centroid each generation step."""

    def __init__(self, centroids: torch.Tensor):
        self.centroids = centroids.float()  # negative: centroid table, not the cache

    def assign(self, buf: torch.Tensor, block_ids=None):
        keys = buf[:, 0]
        if block_ids is not None:
            keys = keys[block_ids]
            return torch.cdist(keys.flatten(0, 1).float(), self.centroids)  # negative: blocks chosen first
        return torch.cdist(keys.flatten(0, 1).float(), self.centroids).argmin(-1)  # positive: f5 CL001 key plane of every block flattened and widened


class SparseAttention:
    def __init__(self, layer_idx, selector):
        self.layer_idx = layer_idx
        self.selector = selector

    def forward(self, q, k, v, metadata, **kwargs):
        buf = metadata.kv_cache_manager.get_buffers(self.layer_idx)
        return self.selector.assign(buf)
