# vLLM on Moore Threads MUSA (out-of-tree platform plugin): the MUSA paged decode op has no FP8 KV input,
# so the plugin's impl widens the layer's planes when kv_cache_dtype is fp8 (stored as uint8).
import torch


class MUSAPagedAttentionImpl:
    def __init__(self, num_heads, head_size, scale, num_kv_heads, kv_cache_dtype):
        self.kv_cache_dtype = kv_cache_dtype
        self.scale = scale

    def forward(self, layer, query, key, value, kv_cache, attn_metadata, output=None):
        key_cache, value_cache = kv_cache.unbind(0)
        fp8 = self.kv_cache_dtype.startswith("fp8")
        if fp8 and attn_metadata.num_decode_tokens:
            key_cache = key_cache.view(torch.float8_e4m3fn).to(query.dtype)  # positive: f6 CL001 whole key plane, reinterpreted then widened
            value_cache = value_cache.view(torch.float8_e4m3fn).to(query.dtype)  # positive: f6 CL001 whole value plane, reinterpreted then widened
        elif fp8:
            key_cache = key_cache.view(torch.float8_e4m3fn)  # negative: zero-copy reinterpretation only
        k_scale = layer._k_scale.to(query.dtype)  # negative: scale
        return torch.ops._musa_C.paged_attention_v1(
            output, query, key_cache, value_cache, attn_metadata.block_tables, attn_metadata.seq_lens, k_scale
        )
