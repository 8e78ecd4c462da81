"""vLLM ROCm: three impl levels; the middle class gathers used blocks, the MI250 leaf widens the whole cache."""
import torch


class RocmAttentionImpl:
    def __init__(self, num_heads, head_size, scale, kv_cache_dtype):
        self.num_heads = num_heads
        self.scale = scale
        self.kv_cache_dtype = kv_cache_dtype

    def _key_value(self, kv_cache, attn_metadata):
        return kv_cache.unbind(0)

    def forward(self, layer, query, key, value, kv_cache, attn_metadata, output=None):
        key_cache, value_cache = self._key_value(kv_cache, attn_metadata)
        return torch.ops.vllm.rocm_paged_attention(query, key_cache, value_cache, attn_metadata.block_table, self.scale, output)


class RocmPagedFallbackImpl(RocmAttentionImpl):
    def _key_value(self, kv_cache, attn_metadata):
        used = attn_metadata.block_table.unique()
        return kv_cache[0, used].to(torch.float16), kv_cache[1, used].to(torch.float16)  # negative: used blocks gathered first


class RocmMI250Impl(RocmPagedFallbackImpl):
    def _key_value(self, kv_cache, attn_metadata):
        if attn_metadata.num_prefills:
            return super()._key_value(kv_cache, attn_metadata)
        key_cache, value_cache = kv_cache.unbind(0)
        return key_cache.to(torch.float16), value_cache.to(torch.float16)  # positive: f2 CL001 both whole planes of the layer cache (one line, one finding)
