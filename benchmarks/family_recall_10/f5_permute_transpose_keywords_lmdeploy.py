"""permute(dims=...), transpose(dim0=, dim1=) and unbound Tensor.transpose on the caches."""
import torch


class KeywordLayoutAttention:
    def __init__(self, num_heads, head_size):
        self.num_heads = num_heads
        self.head_size = head_size

    def forward(self, query, key, value, k_cache, v_cache, attn_metadata,
                k_scales_zeros=None, v_scales_zeros=None):
        k = k_cache.permute(dims=(0, 2, 1, 3)).to(query.dtype)  # positive: f5 CL001 permute with a dims keyword
        v = v_cache.transpose(dim0=1, dim1=2).half()  # positive: f5 CL001 transpose with keywords
        kt = torch.Tensor.transpose(k_cache, 1, 2).float()  # positive: f5 CL001 unbound transpose
        qt = query.transpose(dim0=0, dim1=1).float()  # negative: the step's queries
        kv_lens = attn_metadata.kv_seqlens.to(torch.int64)  # negative: lengths
        return k, v, kt, qt, kv_lens
