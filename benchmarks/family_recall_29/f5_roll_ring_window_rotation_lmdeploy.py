"""lmdeploy StreamingLLM-style ring cache: torch.roll rotates the whole layer before widening."""
import torch


class RingCacheAttention:
    def __init__(self, window_blocks: int, dtype=torch.float16):
        self.window_blocks = window_blocks
        self.dtype = dtype

    def forward(self, query, key, value, past_key_value, attn_metadata):
        k_cache, v_cache = past_key_value
        head = int(attn_metadata.ring_head)
        if attn_metadata.is_decoding:
            k = torch.roll(k_cache, shifts=-head, dims=0).to(self.dtype)  # positive: f5 CL001 roll keeps every block of the layer
            v = v_cache.roll(-head, 0).to(self.dtype)  # positive: f5 CL001 method form, whole value cache
        else:
            live = attn_metadata.block_offsets.flatten()
            k = k_cache[live].roll(-head, 0).to(self.dtype)  # negative: live blocks gathered first
            v = v_cache[live].roll(-head, 0).to(self.dtype)  # negative: live blocks gathered first
        pos = torch.roll(attn_metadata.position_ids, 1).to(torch.int64)  # negative: positions
        return self._paged(query, k, v, pos, attn_metadata)
