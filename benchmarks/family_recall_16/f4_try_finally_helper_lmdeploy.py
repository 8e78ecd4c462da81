import torch


class KVSnapshot:
    def __init__(self):
        self.taken = 0

    def take(self, k_cache, v_cache, dtype):
        try:
            return k_cache.to(dtype), v_cache.to(dtype)  # positive: f4 CL001 both whole caches, one line one finding
        finally:
            self.taken += 1

    def take_blocks(self, k_cache, block_offsets, dtype):
        try:
            return k_cache[block_offsets.flatten()].to(dtype)  # negative: batch blocks
        finally:
            self.taken += 1


class Fp16FallbackAttention(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.snap = KVSnapshot()

    def forward(self, hidden_states, past_key_value, attn_metadata):
        k_cache, v_cache = past_key_value
        if attn_metadata.is_decoding:
            k, v = self.snap.take(k_cache, v_cache, hidden_states.dtype)
            return k, v
        return self.snap.take_blocks(k_cache, attn_metadata.block_offsets, hidden_states.dtype)
