import torch


def reshape_and_cache_flash(key, value, key_cache, value_cache, slot_mapping, kv_cache_dtype, k_scale, v_scale):
    pass


class CascadeFlashAttentionImpl:
    def __init__(self, num_heads, head_size, scale, kv_cache_dtype):
        self.kv_cache_dtype = kv_cache_dtype
        self.scale = scale

    def forward(self, layer, query, key, value, kv_cache, attn_metadata, output=None):
        key_cache, value_cache = kv_cache.unbind(0)
        reshape_and_cache_flash(key, value, key_cache, value_cache, attn_metadata.slot_mapping,
                                self.kv_cache_dtype, layer._k_scale, layer._v_scale)
        if attn_metadata.use_cascade:
            return self._cascade(query, key_cache, value_cache, attn_metadata)
        k_desc = layer._k_scale.expand(query.shape[0]).to(torch.float32)  # negative: per-token scale expand
        return query, k_desc

    def _cascade(self, query, key_cache, value_cache, attn_metadata):
        if self.kv_cache_dtype.startswith("fp8"):
            key_cache = key_cache.to(query.dtype)  # positive: f6 CL001 cascade path upcasts the whole key cache
            value_cache = value_cache.to(query.dtype)  # positive: f6 CL001 cascade path upcasts the whole value cache
        prefix = attn_metadata.cu_prefix_query_lens.to(torch.int32)  # negative: lengths
        return query, key_cache, value_cache, prefix
