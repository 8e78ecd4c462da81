"""f6: a vLLM MLA common-impl subclass converting in forward_mha and forward_mqa."""
import torch

from vllm.v1.attention.backends.mla.common import MLACommonImpl


class UpcastMLAImpl(MLACommonImpl):
    def forward_mha(self, q, kv_c_normed, k_pe, kv_c_and_k_pe_cache, attn_metadata, k_scale, output):
        latent = kv_c_and_k_pe_cache[..., : self.kv_lora_rank].to(q.dtype)  # positive: f6 CL001 latent of every slot
        ctx = self._gather_context(kv_c_and_k_pe_cache, attn_metadata)
        ctx_bf16 = ctx.to(q.dtype)  # negative: gathered context blocks
        new = kv_c_normed.to(q.dtype)  # negative: this step's latents
        return latent, ctx_bf16, new

    def forward_mqa(self, q, kv_c_and_k_pe_cache, attn_metadata, layer):
        dense = kv_c_and_k_pe_cache.to(torch.bfloat16)  # positive: f6 CL001 the whole paged latent cache
        tables = attn_metadata.decode.block_table.to(torch.int32)  # negative: block table
        return dense, tables

    def _gather_context(self, cache, attn_metadata):
        return cache[attn_metadata.prefill.chunked_context.block_ids]
