"""vLLM: torch.select / index_select on the plane or last dimension keep every slot; on
the block dimension they pick a few blocks."""
import torch


class TorchRefImpl:
    def __init__(self, rope_idx):
        self.rope_idx = rope_idx

    def forward(self, layer, query, key, value, kv_cache, attn_metadata, output=None):
        key_cache = torch.select(kv_cache, 0, 0).to(query.dtype)  # positive: f5 CL001 the key plane, every block
        value_cache = kv_cache.select(0, 1)
        rope_part = value_cache.index_select(-1, self.rope_idx).to(query.dtype)  # positive: f5 CL001 last-dim selection, every slot
        first = torch.select(kv_cache, 1, 0).to(query.dtype)  # negative: block 0 of both planes
        blocks = kv_cache[0].index_select(0, attn_metadata.block_table[0]).to(query.dtype)  # negative: one request's blocks
        return self._ref(query, key_cache, rope_part, first, blocks, output)

    def _ref(self, query, key_cache, rope_part, first, blocks, output):
        return output
