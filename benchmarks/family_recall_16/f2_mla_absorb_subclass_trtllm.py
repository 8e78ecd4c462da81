import torch


class MLAGenerationBase:
    def __init__(self, kv_b_proj_weight, kv_lora_rank):
        w = kv_b_proj_weight.unflatten(0, (-1, 2 * 128))
        self.w_kc, self.w_vc = w.split(128, dim=1)
        self.kv_lora_rank = kv_lora_rank

    def latent(self, kv_cache_manager, layer_idx):
        return kv_cache_manager.get_buffers(layer_idx)

    def forward(self, q_nope, q_pe, kv_cache_manager, layer_idx, attn_metadata):
        q_absorbed = torch.einsum("bhd,hdc->bhc", q_nope, self.w_kc.to(q_nope.dtype))  # negative: absorbed weight, not the cache
        latent = self.latent(kv_cache_manager, layer_idx)
        ckv = latent[..., : self.kv_lora_rank]
        kpe = latent[..., self.kv_lora_rank:].to(q_pe.dtype)  # positive: f2 CL001 rope part of every slot in the base forward
        return q_absorbed, ckv, kpe


class MLAGenerationNoFp8(MLAGenerationBase):
    def latent(self, kv_cache_manager, layer_idx):
        buf = super().latent(kv_cache_manager, layer_idx)
        return buf.to(torch.bfloat16)  # positive: f2 CL001 whole latent buffer in the override


class MLAGenerationRows(MLAGenerationBase):
    def latent(self, kv_cache_manager, layer_idx, rows=None):
        buf = super().latent(kv_cache_manager, layer_idx)
        return buf[rows].to(torch.bfloat16) if rows is not None else buf  # negative: rows only
