import torch


class HPUPagedAttentionImpl:
    """Gaudi path without an FP8 cache read."""

    def __init__(self, dtype=torch.bfloat16):
        self.dtype = dtype

    def forward(self, layer, query, key, value, kv_cache, attn_metadata, output=None):
        key_cache, value_cache = kv_cache[0], kv_cache[1]
        k_scale = layer._k_scale_float
        k = key_cache.view(torch.float8_e4m3fn).view(-1, key_cache.shape[-1]).to(self.dtype) * k_scale  # positive: f5 CL001 byte view and flat reshape keep every slot before the dequant
        v = value_cache.view(-1, value_cache.shape[-1]).to(self.dtype)  # positive: f5 CL001 value plane flattened, whole
        reinterp = key_cache.view(torch.uint8)  # negative: .view(dtype) reinterpret
        ks = layer._k_scale.to(self.dtype)  # negative: scale
        return k, v, reinterp, ks
