"""A base attention backend returns the (K, V) halves of the layer buffer; subclasses unpack them."""
import torch


class AttentionBackendBase:
    def __init__(self, layer_idx, num_heads, head_dim):
        self.layer_idx = layer_idx
        self.num_heads = num_heads
        self.head_dim = head_dim

    def _kv_halves(self, metadata):
        buf = metadata.kv_cache_manager.get_buffers(self.layer_idx)
        return buf[:, 0], buf[:, 1]

    def _kv_blocks(self, metadata, block_ids):
        buf = metadata.kv_cache_manager.get_buffers(self.layer_idx)
        return buf[block_ids, 0], buf[block_ids, 1]


class VanillaLikeAttention(AttentionBackendBase):
    def forward(self, q, k, v, metadata, **kwargs):
        k_cache, v_cache = self._kv_halves(metadata)
        kc = k_cache.to(q.dtype)  # positive: f2 CL001 every block's K half of the layer buffer
        vc = self._kv_halves(metadata)[1].to(q.dtype)  # positive: f2 CL001 every block's V half
        return kc, vc


class BlockGatherAttention(AttentionBackendBase):
    def forward(self, q, k, v, metadata, **kwargs):
        ids = metadata.block_ids_per_seq[0]
        kb, vb = self._kv_blocks(metadata, ids)
        return kb.to(q.dtype), vb.to(q.dtype)  # negative: only the sequence's blocks (two casts, gathered)


class SuperHalvesAttention(VanillaLikeAttention):
    def forward(self, q, k, v, metadata, **kwargs):
        kh, _ = super()._kv_halves(metadata)
        return kh.float()  # positive: f2 CL001 every block's K half via super()
