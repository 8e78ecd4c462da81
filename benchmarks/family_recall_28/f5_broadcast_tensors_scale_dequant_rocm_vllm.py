"""vLLM ROCm gfx90a fallback: torch.broadcast_tensors of the whole cache and its scale before dequantizing."""
import torch


class RocmGfx90aFallbackImpl:
    def __init__(self, num_heads, head_size, scale, kv_cache_dtype):
        self.num_heads = num_heads
        self.scale = scale
        self.kv_cache_dtype = kv_cache_dtype

    @staticmethod
    def get_name():
        return "ROCM_GFX90A_FALLBACK"

    def forward(self, layer, query, key, value, kv_cache, attn_metadata, output=None):
        key_cache, value_cache = kv_cache.unbind(0)
        k_b, ks_b = torch.broadcast_tensors(key_cache, layer._k_scale)
        k_deq = k_b.to(query.dtype) * ks_b  # positive: f5 CL001 broadcasting keeps every slot of the key cache
        ks = layer._k_scale.to(query.dtype)  # negative: scale
        v_used = value_cache[attn_metadata.block_table.flatten()]
        v_b, vs_b = torch.broadcast_tensors(v_used, layer._v_scale)
        v_deq = v_b.to(query.dtype) * vs_b  # negative: blocks gathered before broadcasting
        return torch.ops.vllm.rocm_reference_attention(query, k_deq, v_deq, ks, attn_metadata.seq_lens, self.scale, output)
