import torch


class DeepseekMLAAttention:
    def __init__(self, kv_b_proj, kv_lora_rank, has_fp8_mla_gen):
        self.kv_b_proj = kv_b_proj
        self.kv_lora_rank = kv_lora_rank
        self.has_fp8_mla_gen = has_fp8_mla_gen

    def forward_generation(self, q, compressed_kv, k_pe, attn_metadata, layer_idx):
        w = self.kv_b_proj.weight.to(q.dtype)  # negative: projection weight
        latent_cache = attn_metadata.kv_cache_manager.get_buffers(layer_idx)
        if not self.has_fp8_mla_gen:
            latent_cache = latent_cache.to(torch.bfloat16)  # positive: f6 CL001 whole latent layer before the bf16 MLA kernel
        new = compressed_kv.to(latent_cache.dtype)  # negative: batch latents written into the cache
        return w, latent_cache, new

    def forward(self, q, compressed_kv, k_pe, attn_metadata, layer_idx):
        if attn_metadata.num_generations:
            return self.forward_generation(q, compressed_kv, k_pe, attn_metadata, layer_idx)
        return q
