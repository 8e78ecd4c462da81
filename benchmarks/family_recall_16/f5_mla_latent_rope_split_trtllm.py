import torch


class MLAGenerationTorch:
    def __init__(self, kv_lora_rank, rope_dim, w_kc, w_vc):
        self.kv_lora_rank = kv_lora_rank
        self.rope_dim = rope_dim
        self.w_kc = w_kc
        self.w_vc = w_vc

    def forward(self, q_nope, q_pe, attn_metadata, kv_cache_manager, layer_idx):
        latent = kv_cache_manager.get_buffers(layer_idx)
        ckv, kpe = latent.split([self.kv_lora_rank, self.rope_dim], dim=-1)
        ckv16 = ckv.to(q_nope.dtype)  # positive: f5 CL001 compressed part of every slot
        kpe16 = latent[..., self.kv_lora_rank:].to(q_pe.dtype)  # positive: f5 CL001 rope part of every slot
        w_kc = self.w_kc.to(q_nope.dtype)  # negative: absorbed weight
        w_vc = self.w_vc.transpose(1, 2).to(q_nope.dtype)  # negative: absorbed weight
        head = latent.split([64, latent.shape[0] - 64], dim=0)[0].to(q_nope.dtype)  # negative: first 64 pages
        return ckv16, kpe16, w_kc, w_vc, head
