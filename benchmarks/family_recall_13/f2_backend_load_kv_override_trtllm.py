import torch


class AttentionBackend:
    def __init__(self, layer_idx, num_heads, head_dim, dtype):
        self.layer_idx = layer_idx
        self.num_heads = num_heads
        self.head_dim = head_dim
        self.dtype = dtype

    def _load_kv(self, metadata):
        raise NotImplementedError

    def forward(self, q, k, v, metadata, **kwargs):
        kv = self._load_kv(metadata)
        return self._attend(q, k, v, kv, metadata)

    def _attend(self, q, k, v, kv, metadata):
        return q


class VanillaUpcastAttention(AttentionBackend):
    def _load_kv(self, metadata):
        buf = metadata.kv_cache_manager.get_buffers(self.layer_idx)
        return buf.to(self.dtype)  # positive: f2 CL001 override called by the base forward, whole layer buffer


class VanillaGatherAttention(AttentionBackend):
    def _load_kv(self, metadata):
        buf = metadata.kv_cache_manager.get_buffers(self.layer_idx)
        blocks = metadata.kv_cache_block_offsets[0, : metadata.num_seqs].flatten()
        return buf.index_select(0, blocks).to(self.dtype)  # negative: gather the step's blocks, then cast
