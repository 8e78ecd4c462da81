"""vLLM on AWS Neuron (Trainium): the NKI flash paged-attention kernel reads bf16, so an FP8 KV cache is widened per forward."""
import torch

from vllm.attention.backends.abstract import AttentionImpl
from vllm.attention.ops.nki_flash_attn import flash_paged_attention


class NeuronNKIPagedAttentionImpl(AttentionImpl):
    def __init__(self, num_heads, head_size, scale, num_kv_heads, kv_cache_dtype="auto", **kw):
        self.num_heads = num_heads
        self.scale = scale
        self.kv_cache_dtype = kv_cache_dtype

    def forward(self, layer, query, key, value, kv_cache, attn_metadata, output=None):
        k_cache, v_cache = kv_cache[0], kv_cache[1]
        active = k_cache.index_select(0, attn_metadata.active_block_table).to(torch.bfloat16)  # negative: active blocks selected first
        if self.kv_cache_dtype != "auto":
            k_cache = k_cache.to(torch.bfloat16)  # positive: f6 CL001 whole Neuron key cache
            v_cache = v_cache.to(torch.bfloat16)  # positive: f6 CL001 whole Neuron value cache
        q = query.to(k_cache.device)  # negative: device move
        return flash_paged_attention(q, key, value, k_cache, v_cache, attn_metadata.active_block_table, active, self.scale)
