"""vLLM-style attention impls: a subclass hands its own bound reader method to the base __init__."""
import torch


class PagedAttentionImplBase:
    def __init__(self, num_heads, head_size, scale, kv_cache_dtype, kv_reader=None):
        self.num_heads = num_heads
        self.head_size = head_size
        self.scale = scale
        self.kv_cache_dtype = kv_cache_dtype
        self.kv_reader = kv_reader or self._passthrough

    @staticmethod
    def _passthrough(kv_cache, dtype):
        return kv_cache

    def forward(self, layer, query, key, value, kv_cache, attn_metadata, output=None):
        kv = self.kv_reader(kv_cache, query.dtype)
        key_cache, value_cache = kv.unbind(0)
        k_scale = layer._k_scale.to(query.dtype)  # negative: the scale tensor, not the cache
        return self._attend(query * k_scale, key_cache, value_cache, attn_metadata)

    def _attend(self, query, key_cache, value_cache, attn_metadata):
        return query


class TorchSDPAFp8FallbackImpl(PagedAttentionImplBase):
    def __init__(self, num_heads, head_size, scale, kv_cache_dtype):
        super().__init__(num_heads, head_size, scale, kv_cache_dtype, kv_reader=self._widen)

    def _widen(self, kv_cache, dtype):
        return kv_cache.view(torch.float8_e4m3fn).to(dtype)  # positive: f2 CL001 bound method handed to the base, called per step with the whole cache

    def _widen_blocks(self, kv_cache, block_table, dtype):
        return kv_cache[:, block_table.flatten()].view(torch.float8_e4m3fn).to(dtype)  # negative: blocks of the batch

    def _attend(self, query, key_cache, value_cache, attn_metadata):
        return query
