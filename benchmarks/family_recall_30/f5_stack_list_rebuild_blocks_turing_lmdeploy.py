"""lmdeploy Turing int8-KV fallback: torch.stack(list(k_cache)) rebuilds the whole cache from its blocks before .half()."""
import torch


class TuringInt8PagedAttention:
    def __init__(self, num_heads, head_size, scale):
        self.num_heads = num_heads
        self.head_size = head_size
        self.scale = scale

    def forward(self, query, key, value, k_cache, v_cache, attn_metadata, k_scales_zeros, v_scales_zeros):
        if attn_metadata.is_decoding:
            k_all = torch.stack(list(k_cache)).half()  # positive: f5 CL001 every block of the key cache restacked
            v_all = torch.stack(list(v_cache)).half()  # positive: f5 CL001 every block of the value cache
        else:
            ids = attn_metadata.block_offsets[0].tolist()
            k_all = torch.stack([k_cache[b] for b in ids]).half()  # negative: blocks of the first sequence
            v_all = torch.stack([v_cache[b] for b in ids]).half()  # negative: blocks of the first sequence
        kz = k_scales_zeros.half()  # negative: scales and zeros
        k_deq = (k_all - kz[..., 1:]) * kz[..., :1]
        return torch.nn.functional.scaled_dot_product_attention(query, k_deq, v_all, scale=self.scale)
