"""TensorRT-LLM-style MLA generation fallback multiplying against the whole latent cache."""
import torch
import torch.nn.functional as F


class MLAGenerationFallback:
    def __init__(self, layer_idx, kv_lora_rank, w_kc, w_vc):
        self.layer_idx = layer_idx
        self.kv_lora_rank = kv_lora_rank
        self.w_kc = w_kc
        self.w_vc = w_vc

    def forward(self, q_nope_abs, q_pe, metadata):
        latent = metadata.kv_cache_manager.get_buffers(self.layer_idx)
        kv_c = latent[..., : self.kv_lora_rank].flatten(0, -2)
        k_pe = latent[..., self.kv_lora_rank :].flatten(0, -2)
        scores = torch.matmul(q_nope_abs, kv_c.to(q_nope_abs.dtype).transpose(-1, -2))  # positive: f5 CL001 last-dim part of every slot widened
        scores = scores + torch.matmul(q_pe, k_pe.to(q_pe.dtype).transpose(-1, -2))  # positive: f5 CL001 rope part of every slot widened
        w_kc = self.w_kc.to(kv_c.dtype)  # negative: absorbed weight, not the cache
        ctx = F.linear(kv_c[metadata.active_slots].to(q_nope_abs.dtype), self.w_vc)  # negative: active slots only
        return scores.softmax(-1), ctx, w_kc
