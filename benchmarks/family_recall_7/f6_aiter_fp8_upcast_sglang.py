"""f6: an aiter-style MLA backend upcasting the FP8 pool layer in decode, and its latent split in extend."""
import torch


class AiterMLABackendLite:
    def __init__(self, model_runner):
        self.kv_cache_dtype = model_runner.kv_cache_dtype
        self.token_to_kv_pool = model_runner.token_to_kv_pool
        self.kv_lora_rank = 512
        self.qk_rope_head_dim = 64

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        k_buffer = self.token_to_kv_pool.get_key_buffer(layer.layer_id)
        if self.kv_cache_dtype == torch.float8_e4m3fn:
            k_buffer = k_buffer.to(torch.bfloat16)  # positive: f6 CL001 whole FP8 layer upcast per decode step
        scale = layer.k_scale.to(torch.float32) if layer.k_scale is not None else None  # negative: a scale
        return k_buffer.view(-1, 1, 1, 576), scale

    def forward_extend(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        kv = self.token_to_kv_pool.get_key_buffer(layer.layer_id)
        kvc, k_pe = torch.split(kv, [self.kv_lora_rank, self.qk_rope_head_dim], dim=-1)
        kvc = kvc.to(q.dtype)  # positive: f6 CL001 latent part of every token
        prefix = kv[forward_batch.prefix_loc].to(q.dtype)  # negative: gathered prefix rows
        return kvc, k_pe, prefix
