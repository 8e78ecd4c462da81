import torch

from .latent_ops import absorb, latent_to_compute, page_latents


class MLAGenerationFallback:
    def __init__(self, w_kc, kv_lora_rank):
        self.w_kc = w_kc
        self.kv_lora_rank = kv_lora_rank

    def forward(self, q_nope, q_pe, attn_metadata, layer_idx):
        latent = attn_metadata.kv_cache_manager.get_buffers(layer_idx)
        q_abs = absorb(q_nope, self.w_kc, torch.bfloat16)
        if attn_metadata.is_cuda_graph:
            ckv, kpe = latent_to_compute(latent, torch.bfloat16, self.kv_lora_rank)
            return q_abs, ckv, kpe
        pages = page_latents(latent, attn_metadata.kv_cache_block_offsets[0, 0], torch.bfloat16)
        return q_abs, pages, q_pe
