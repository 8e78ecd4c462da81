import torch


class RankHeadShard:
    """The heads this TP rank owns, as a view of the manager's whole layer buffer."""

    def __init__(self, kv_cache_manager, tp_rank, tp_size):
        self.manager = kv_cache_manager
        self.tp_rank = tp_rank
        self.tp_size = tp_size

    def layer(self, layer_idx):
        buf = self.manager.get_buffers(layer_idx)
        per = buf.shape[3] // self.tp_size
        return buf[:, :, :, self.tp_rank * per:(self.tp_rank + 1) * per]


class ShardedVanillaAttention:
    def __init__(self, layer_idx, shard: RankHeadShard):
        self.layer_idx = layer_idx
        self.shard = shard

    def forward(self, q, k, v, metadata):
        kv = self.shard.layer(self.layer_idx)
        dense = kv.to(q.dtype)  # positive: f1 CL001 head shard keeps every block of the pool
        blocks = kv[metadata.kv_cache_block_offsets[0, 0]].to(q.dtype)  # negative: block gather
        return dense, blocks
