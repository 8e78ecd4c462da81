"""vLLM Gaudi (HPU) MLA impl: _forward_decode widens the whole latent cache; prefill fetches blocks."""
import torch


class HPUMLAImpl:
    def __init__(self, num_heads, head_size, scale, kv_lora_rank, qk_rope_head_dim, kv_cache_dtype):
        self.num_heads = num_heads
        self.scale = scale
        self.kv_lora_rank = kv_lora_rank
        self.qk_rope_head_dim = qk_rope_head_dim
        self.kv_cache_dtype = kv_cache_dtype

    def _forward_decode(self, q_nope, q_pe, kv_c_and_k_pe_cache, attn_metadata, layer):
        latent = kv_c_and_k_pe_cache.to(q_nope.dtype)  # positive: f6 CL001 whole latent cache of the layer, every decode step
        q = torch.cat([q_nope, q_pe], dim=-1)
        return torch.ops.hpu.flat_pa_mla(q, latent, attn_metadata.block_list, attn_metadata.block_mapping, self.scale)

    def _forward_prefill(self, q, kv_c_normed, k_pe, kv_c_and_k_pe_cache, attn_metadata, layer):
        blocks = kv_c_and_k_pe_cache.index_select(0, attn_metadata.block_list).to(q.dtype)  # negative: block_list fetched first
        k_new = torch.cat([kv_c_normed, k_pe.squeeze(1)], dim=-1).to(q.dtype)  # negative: new tokens
        return torch.ops.hpu.prompt_mla(q, k_new, blocks, self.scale)

    def forward(self, layer, q, k_c_normed, k_pe, kv_cache, attn_metadata, output=None):
        if attn_metadata.is_prompt:
            return self._forward_prefill(q, k_c_normed, k_pe, kv_cache, attn_metadata, layer)
        q_nope, q_pe = q.split([self.kv_lora_rank, self.qk_rope_head_dim], dim=-1)
        return self._forward_decode(q_nope, q_pe, kv_cache, attn_metadata, layer)
