"""lmdeploy-style MQA torch fallback: sink blocks concatenated before the cache; head dim squeezed."""
import torch


class SinkMQAFallbackImpl:
    def __init__(self, num_heads, head_dim, sink_blocks=()):
        self.num_heads = num_heads
        self.head_dim = head_dim
        self.sink_blocks = list(sink_blocks)

    def forward(self, query, key, value, k_cache, v_cache, attn_metadata, k_scales_zeros=None, v_scales_zeros=None):
        blocks = attn_metadata.block_offsets.flatten()
        if attn_metadata.is_decoding:
            k = torch.cat([*self.sink_blocks, k_cache]).float()  # positive: f5 CL001 concatenation contains every block
            v = v_cache.squeeze(-2).float()  # positive: f5 CL001 single kv head squeezed, every block kept
        else:
            k = torch.cat([*self.sink_blocks, k_cache[blocks]]).float()  # negative: sinks plus the batch's blocks
            v = v_cache[blocks].squeeze(-2).float()  # negative: the batch's blocks
        return self._attend(query.float(), k, v, attn_metadata)

    def _attend(self, query, k, v, attn_metadata):
        return query
