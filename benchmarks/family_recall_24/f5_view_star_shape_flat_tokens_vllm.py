# vLLM v1 FlexAttention-style fallback: the paged planes are viewed as flat token rows
# (view(-1, *shape[2:])) before the score computation.
import torch


class FlatTokenAttentionImpl:
    def forward(self, layer, query, key, value, kv_cache, attn_metadata, output=None):
        key_cache, value_cache = kv_cache.unbind(0)
        flat_k = key_cache.view(-1, *key_cache.shape[2:])
        flat_v = value_cache.view(-1, *value_cache.shape[2:])
        if self.kv_cache_dtype.startswith("fp8"):
            flat_k = flat_k.to(query.dtype)  # positive: f5 CL001 whole key plane, flattened to tokens
            flat_v = flat_v[attn_metadata.slot_mapping].to(query.dtype)  # negative: slots gathered first
        flat_k = flat_k.view(torch.uint8) if self.debug_bytes else flat_k  # negative: reinterpret
        return self._attend(query, flat_k, flat_v, attn_metadata, output)
