import torch

from .codecs import CODECS


class CodecAttentionImpl:
    def __init__(self, quant_policy):
        self.codec = CODECS["int8" if quant_policy == 8 else "int4"]

    def forward(self, query, key, value, k_cache, v_cache, attn_metadata, k_scales_zeros=None, v_scales_zeros=None):
        k = self.codec(k_cache, k_scales_zeros)
        v = self.codec(v_cache, v_scales_zeros)
        lens = attn_metadata.kv_seqlens.to(torch.int32)  # negative: lengths
        return query.half(), k, v, lens  # negative: the step's query
