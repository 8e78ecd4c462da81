from .base import CacheReaderBase


class ReaderAttention(CacheReaderBase):
    def forward(self, query, key, value, attn_metadata):
        k = self.whole_k().to(query.dtype)  # positive: f7 CL001 base.py accessor returns the whole K cache
        v = self.blocks_v(attn_metadata.block_offsets).to(query.dtype)  # negative: base.py gathers blocks
        moved = self.whole_k().to(query.device)  # negative: device only
        return k, v, moved
