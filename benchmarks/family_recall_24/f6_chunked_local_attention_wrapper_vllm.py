# vLLM v1 chunked local attention (Llama 4 style) wrapped around a base impl; on GPUs
# without FP8 support in the local-attention path the cache is widened per call.
import torch


class ChunkedLocalAttentionImpl:
    def __init__(self, base_impl, attention_chunk_size, kv_cache_dtype):
        self.base = base_impl
        self.attention_chunk_size = attention_chunk_size
        self.kv_cache_dtype = kv_cache_dtype

    def forward(self, layer, query, key, value, kv_cache, attn_metadata, output=None):
        local_meta = attn_metadata.local_attn_metadata
        if local_meta is None:
            return self.base.forward(layer, query, key, value, kv_cache, attn_metadata, output)
        if self.kv_cache_dtype.startswith("fp8") and not self.base.supports_quant_query_input:
            kv_cache = kv_cache.to(query.dtype)  # positive: f6 CL001 whole paged cache for the local path
        virt = kv_cache[:, local_meta.virt_block_table.flatten()]
        return self.base.forward(layer, query, key, value, virt, local_meta, output)

    def process_weights_after_loading(self, act_dtype):
        self.sinks = self.base.sinks.to(act_dtype) if self.base.sinks is not None else None  # negative: weights
