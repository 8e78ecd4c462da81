"""f1: the impl stores caches with setattr under generated attribute names and reads them back."""
import torch

_SLOTS = ("cache_main", "cache_draft")


class SetattrImpl:
    def __init__(self, num_heads, head_size, scale):
        self.num_heads = num_heads
        self.head_size = head_size
        self.scale = scale
        for name in _SLOTS:
            setattr(self, name, None)

    def bind(self, main_cache, draft_cache, block_table):
        setattr(self, "cache_main", main_cache)
        setattr(self, _SLOTS[1], draft_cache)
        setattr(self, "block_table", block_table)

    def forward(self, layer, query, key, value, kv_cache, attn_metadata, output=None):
        self.bind(kv_cache, kv_cache, attn_metadata.block_table)
        whole = self.cache_main.to(query.dtype)  # positive: f1 CL001 kv_cache stored under a setattr name
        second = getattr(self, "cache_draft").float()  # positive: f1 CL001 read back with getattr
        table = self.block_table.to(torch.int64)  # negative: block table
        return whole, second, table

    def forward_decode_only(self, query, attn_metadata):
        used = self.cache_main[:, attn_metadata.block_table[0]].to(query.dtype)  # negative: the first request's blocks, gathered
        return used
