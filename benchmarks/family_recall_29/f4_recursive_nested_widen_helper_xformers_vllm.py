"""vLLM xFormers backend (fp8 cache, no fp8 paged kernel on this build): a recursive helper converts every tensor inside nested tuples/lists."""
import torch

from vllm.attention.ops.paged_attn import PagedAttention


def _widen(obj, dtype):
    if isinstance(obj, (tuple, list)):
        return type(obj)(_widen(o, dtype) for o in obj)
    return obj.to(dtype)  # positive: f4 CL001 reached with the (key_cache, value_cache) tuple: both whole caches


class XFormersFallbackImpl:
    def __init__(self, num_heads, head_size, scale):
        self.num_heads, self.head_size, self.scale = num_heads, head_size, scale

    def forward(self, layer, query, key, value, kv_cache, attn_metadata, output=None):
        key_cache, value_cache = PagedAttention.split_kv_cache(kv_cache, self.num_kv_heads, self.head_size)
        if attn_metadata.prefill_metadata is not None:
            blocks = attn_metadata.block_tables.flatten()
            k_rows = key_cache.index_select(0, blocks).to(query.dtype)  # negative: block gather
            v_rows = value_cache.index_select(0, blocks).to(query.dtype)  # negative: block gather
            return self._prompt(query, k_rows, v_rows, attn_metadata)
        k, v = _widen((key_cache, value_cache), query.dtype)
        bias = attn_metadata.attn_bias.to(query.dtype)  # negative: the mask/bias
        return self._flat_decode(query, k, v, bias, attn_metadata)
