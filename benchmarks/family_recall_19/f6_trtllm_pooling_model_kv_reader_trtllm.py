import torch


class LastTokenPoolerFromCache:
    """Reward/embedding head that reads the final layer's value cache instead of hidden states."""

    def __init__(self, kv_cache_manager, last_layer):
        self.manager = kv_cache_manager
        self.last_layer = last_layer

    def __call__(self, metadata, dtype=torch.float32):
        buf = self.manager.get_buffers(self.last_layer)
        values = buf[:, 1].to(dtype)  # positive: f6 CL001 value plane of every block
        last_blocks = metadata.kv_cache_block_offsets[:, 0, -1]
        pooled = buf[last_blocks, 1].to(dtype)  # negative: the last block of each request
        return values, pooled


class PoolingExecutor:
    def __init__(self, pooler: LastTokenPoolerFromCache):
        self.pooler = pooler

    def _forward_step(self, scheduled_requests, metadata):
        return self.pooler(metadata)
