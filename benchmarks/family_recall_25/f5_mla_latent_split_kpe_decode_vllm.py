import torch


class TritonMLAImplNoFp8:
    def __init__(self, kv_lora_rank, qk_rope_head_dim, dtype=torch.bfloat16):
        self.kv_lora_rank = kv_lora_rank
        self.qk_rope_head_dim = qk_rope_head_dim
        self.dtype = dtype

    def _forward_decode(self, q, kv_c_and_k_pe_cache, attn_metadata, layer):
        kv_c, k_pe = kv_c_and_k_pe_cache.split([self.kv_lora_rank, self.qk_rope_head_dim], dim=-1)
        kv_c = kv_c.to(self.dtype)  # positive: f5 CL001 latent last-dim part, every slot
        k_pe = k_pe.to(self.dtype)  # positive: f5 CL001 rope last-dim part, every slot
        q_nope, q_pe = q.split([self.kv_lora_rank, self.qk_rope_head_dim], dim=-1)
        q_pe = q_pe.to(self.dtype)  # negative: query part
        tail = kv_c_and_k_pe_cache[attn_metadata.decode.block_table[:, -1]].to(self.dtype)  # negative: last blocks gathered first
        return kv_c, k_pe, q_nope, q_pe, tail
