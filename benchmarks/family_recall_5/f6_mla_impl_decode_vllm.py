"""vLLM MLA impl: forward passes the latent cache to _forward_decode."""

import torch


class LatentUpcastMLAImpl:
    def __init__(self, num_heads, kv_lora_rank, qk_rope_head_dim, kv_cache_dtype):
        self.num_heads = num_heads
        self.kv_lora_rank = kv_lora_rank
        self.qk_rope_head_dim = qk_rope_head_dim
        self.kv_cache_dtype = kv_cache_dtype

    def forward(self, layer, q, k_c_normed, k_pe, kv_cache, attn_metadata, output=None):
        if kv_cache.numel() > 0:
            torch.ops._C_cache_ops.concat_and_cache_mla(k_c_normed, k_pe.squeeze(1), kv_cache, attn_metadata.slot_mapping.flatten(), self.kv_cache_dtype, layer._k_scale)
        if attn_metadata.decode is not None:
            return self._forward_decode(q, kv_cache, attn_metadata, layer)
        return self._forward_prefill(q, k_c_normed, k_pe, kv_cache, attn_metadata)

    def _forward_decode(self, q, kv_c_and_k_pe_cache, attn_metadata, layer):
        kv = kv_c_and_k_pe_cache.to(q.dtype)  # positive: f6 CL001 MLA decode helper upcasts the whole latent cache
        kv = kv * layer._k_scale
        o = q.new_empty(q.shape[0], self.num_heads, self.kv_lora_rank)
        torch.ops._C.mla_decode_ref(q, kv, o, attn_metadata.decode.block_table, attn_metadata.decode.seq_lens)
        return o

    def _forward_prefill(self, q, kv_c_normed, k_pe, kv_c_and_k_pe_cache, attn_metadata):
        kv_nope = kv_c_normed.to(q.dtype)  # negative: this step's compressed kv (batch tensor)
        chunk = attn_metadata.prefill.chunked_context
        ctx = None
        if chunk is not None:
            ctx = kv_c_and_k_pe_cache[chunk.block_table].to(q.dtype)  # negative: gather-then-cast of the context blocks
        return torch.ops._C.mla_prefill_ref(q, kv_nope, k_pe, ctx)
