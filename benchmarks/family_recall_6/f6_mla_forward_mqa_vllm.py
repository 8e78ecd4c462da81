"""vLLM MLA: the common impl's forward hands the latent cache to a subclass's forward_mqa."""
import torch


class MLACommonImplLite:
    def __init__(self, kv_lora_rank, qk_rope_head_dim, kv_cache_dtype):
        self.kv_lora_rank = kv_lora_rank
        self.qk_rope_head_dim = qk_rope_head_dim
        self.kv_cache_dtype = kv_cache_dtype

    def forward(self, layer, q, k_c_normed, k_pe, kv_cache, attn_metadata, output=None):
        if attn_metadata.num_decodes:
            return self.forward_mqa(q, kv_cache, attn_metadata, layer)
        return self.forward_mha(q, k_c_normed, k_pe, kv_cache, attn_metadata)

    def forward_mha(self, q, kv_c_normed, k_pe, kv_c_and_k_pe_cache, attn_metadata):
        ctx = kv_c_and_k_pe_cache[attn_metadata.prefill_block_table].to(q.dtype)  # negative: gather-then-cast of the context blocks
        kvc = kv_c_normed.to(q.dtype)  # negative: batch latents
        return ctx, kvc


class TritonMLAImplLite(MLACommonImplLite):
    def forward_mqa(self, q, kv_c_and_k_pe_cache, attn_metadata, layer):
        cache = kv_c_and_k_pe_cache.to(q.dtype)  # positive: f6 CL001 the whole latent cache handed from forward
        kv_c = kv_c_and_k_pe_cache[..., : self.kv_lora_rank]
        lat = kv_c.to(q.dtype)  # positive: f6 CL001 every token's latent part
        scale = layer._k_scale.to(q.dtype)  # negative: a scale
        return cache, lat, scale


class FlashMLAImplLite(MLACommonImplLite):
    def forward_mqa(self, q, kv_c_and_k_pe_cache, attn_metadata, layer):
        if self.kv_cache_dtype.startswith("fp8"):
            q = q.to(torch.float8_e4m3fn)  # negative: quantizes the batch query instead
        return q, kv_c_and_k_pe_cache.unsqueeze(-2)
