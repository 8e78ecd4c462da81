import torch


class SplitRopeBackend:
    def __init__(self, model_runner):
        self.kv_lora_rank = 512
        self.qk_rope_head_dim = 64

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        kv = forward_batch.token_to_kv_pool.get_key_buffer(layer.layer_id)
        k_nope, k_pe = kv.split([self.kv_lora_rank, self.qk_rope_head_dim], dim=-1)
        k_nope = k_nope.to(q.dtype)  # positive: f5 CL001 split along the feature dim keeps every slot
        k_pe = k_pe.to(q.dtype)  # positive: f5 CL001 rope part of every slot
        ckv = kv[..., : self.kv_lora_rank].squeeze(1).to(q.dtype)  # positive: f5 CL001 feature slice of every slot
        return k_nope, k_pe, ckv
