"""vLLM Gaudi (HPU) decode impl that reaches its layer's (key, value) cache pair through a weakref.ref to the Attention layer."""
import weakref

import torch

from vllm.attention.backends.abstract import AttentionImpl


class HPUFp8FallbackImpl(AttentionImpl):
    def __init__(self, layer, num_heads, head_size, scale, kv_cache_dtype):
        self._layer_ref = weakref.ref(layer)
        self.num_heads = num_heads
        self.scale = scale
        self.fp8_kv = kv_cache_dtype.startswith("fp8")

    def forward(self, layer, query, key, value, kv_cache, attn_metadata, output=None):
        owner = self._layer_ref()
        k_cache, v_cache = owner.kv_cache[attn_metadata.virtual_engine]
        if self.fp8_kv and not attn_metadata.is_prompt:
            k_dense = k_cache.to(query.dtype)  # positive: f1 CL001 whole HPU key cache reached through the weakref'd layer
            v_dense = v_cache.to(query.dtype)  # positive: f1 CL001 whole HPU value cache
            return self._paged(query, k_dense, v_dense, attn_metadata)
        blocks = k_cache.index_select(0, attn_metadata.block_list).to(query.dtype)  # negative: blocks of this batch selected first
        q = query.to(k_cache.device)  # negative: device move of the query
        return self._paged(q, blocks, v_cache, attn_metadata)

    def _paged(self, q, k, v, attn_metadata):
        return torch.ops.hpu.paged_attention(q, k, v, attn_metadata.block_list, self.scale)
