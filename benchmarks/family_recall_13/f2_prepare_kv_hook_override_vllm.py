import torch


class FlashAttentionImplBase:
    def __init__(self, num_heads, head_size, scale, kv_cache_dtype):
        self.num_heads = num_heads
        self.head_size = head_size
        self.scale = scale
        self.kv_cache_dtype = kv_cache_dtype

    def _prepare_kv(self, key_cache, value_cache, query):
        return key_cache, value_cache

    def forward(self, layer, query, key, value, kv_cache, attn_metadata, output=None):
        key_cache, value_cache = kv_cache.unbind(0)
        key_cache, value_cache = self._prepare_kv(key_cache, value_cache, query)
        descale = layer._q_scale.expand(attn_metadata.num_reqs, self.num_heads)  # negative: scale broadcast, no dtype change
        return self._flash(query, key_cache, value_cache, attn_metadata, descale, output)

    def _flash(self, q, kc, vc, md, descale, out):
        return out


class FlashAttentionImplNoFp8(FlashAttentionImplBase):
    """Older GPUs without FP8 flash kernels."""

    def _prepare_kv(self, key_cache, value_cache, query):
        kc = key_cache.to(query.dtype)  # positive: f2 CL001 override of the base hook receives the whole key cache
        vc = value_cache.to(query.dtype)  # positive: f2 CL001 override of the base hook receives the whole value cache
        return kc, vc


class FlashAttentionImplScaled(FlashAttentionImplBase):
    def _prepare_kv(self, key_cache, value_cache, query):
        return key_cache.view(torch.uint8), value_cache.view(torch.uint8)  # negative: reinterpret views, no copy
