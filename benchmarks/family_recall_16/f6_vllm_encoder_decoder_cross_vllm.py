import torch


class TritonEncDecAttentionImpl:
    """Encoder-decoder path on GPUs without an FP8 cross-attention kernel."""

    def __init__(self, kv_cache_dtype):
        self.kv_cache_dtype = kv_cache_dtype

    def forward(self, layer, query, key, value, kv_cache, attn_metadata, output=None):
        key_cache, value_cache = kv_cache.unbind(0)
        if attn_metadata.attn_type == "encoder_decoder" and self.kv_cache_dtype.startswith("fp8"):
            kc = key_cache.view(torch.float8_e4m3fn).to(query.dtype)  # positive: f6 CL001 whole cross key cache
            vc = value_cache.view(torch.float8_e4m3fn).to(query.dtype)  # positive: f6 CL001 whole cross value cache
            return query, kc, vc
        if attn_metadata.attn_type == "encoder":
            enc = key.to(query.dtype)  # negative: encoder keys of the batch
            return query, enc, None
        return query, key_cache, value_cache
