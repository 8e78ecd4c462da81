"""vLLM tree attention (speculative decoding): the tree kernel has no FP8-KV variant, so the
impl widens the cache planes for the verify step."""
import torch


class TreeAttentionImpl:
    def __init__(self, num_heads, head_size, scale, num_kv_heads, kv_cache_dtype, **kwargs):
        self.kv_cache_dtype = kv_cache_dtype
        self.scale = scale

    def forward(self, layer, query, key, value, kv_cache, attn_metadata, output=None, output_scale=None):
        key_cache, value_cache = kv_cache.unbind(0)
        torch.ops._C_cache_ops.reshape_and_cache_flash(
            key, value, key_cache, value_cache, attn_metadata.slot_mapping, self.kv_cache_dtype,
            layer._k_scale, layer._v_scale,
        )
        if self.kv_cache_dtype.startswith("fp8"):
            key_cache = key_cache.to(query.dtype)  # positive: f6 CL001 whole key plane for the tree kernel
            value_cache = value_cache.to(query.dtype)  # positive: f6 CL001 whole value plane for the tree kernel
        bias = attn_metadata.tree_attn_bias.to(query.dtype)  # negative: the tree mask bias
        return self._unified(query, key_cache, value_cache, bias, output)

    def _unified(self, query, key_cache, value_cache, bias, output):
        return output
