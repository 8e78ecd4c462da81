"""vLLM: a dense-KV mixin shared by two fallback impls; one passes the whole cache, the other a block gather."""
import torch


class _DenseKVMixin:
    dense_dtype = torch.bfloat16

    def _dense(self, kv_cache):
        return kv_cache.to(self.dense_dtype)  # positive: f2 CL001 XFormersFallbackImpl.forward passes the whole layer cache

    def _dense_rows(self, kv_cache, slot_mapping):
        return kv_cache.flatten(1, 2)[:, slot_mapping].to(self.dense_dtype)  # negative: slots gathered first


class AttentionImplBase:
    def __init__(self, num_heads, head_size, scale):
        self.num_heads = num_heads
        self.scale = scale


class XFormersFallbackImpl(_DenseKVMixin, AttentionImplBase):
    def forward(self, layer, query, key, value, kv_cache, attn_metadata, output=None):
        kv = self._dense(kv_cache)
        return torch.ops.vllm.paged_attention_v1(query.to(self.dense_dtype), kv[0], kv[1], attn_metadata.block_table, self.scale)


class FlexFallbackImpl(_DenseKVMixin, AttentionImplBase):
    def forward(self, layer, query, key, value, kv_cache, attn_metadata, output=None):
        kv = self._dense_rows(kv_cache, attn_metadata.slot_mapping)
        k_new = key.to(self.dense_dtype)  # negative: new tokens
        return torch.ops.vllm.flex_attention(query, kv[0], kv[1], k_new, self.scale)
