import torch


class KwargCacheAttention:
    def _attn(self, query, *, cache, offsets):
        # Every caller hands over the layer's whole (k, v) caches.
        k_cache = cache[0].to(query.dtype)  # positive: f1 CL001 helper whose every caller passes the whole caches
        v_cache = cache[1]
        return query, k_cache, v_cache, offsets

    def forward(self, query, key, value, past_key_value, attn_metadata):
        return self._attn(query, cache=past_key_value, offsets=attn_metadata.block_offsets)

    def forward_decode(self, query, past_key_value, attn_metadata):
        kw = {"cache": past_key_value, "offsets": attn_metadata.block_offsets}
        return self._attn(query, **kw)
