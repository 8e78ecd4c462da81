import torch


class TritonMLAImplGfx90a:
    """MI200 Triton MLA: no FP8 loads in the decode kernel, so the latent cache is widened."""

    def __init__(self, kv_lora_rank, qk_rope_head_dim, kv_cache_dtype):
        self.kv_lora_rank = kv_lora_rank
        self.qk_rope_head_dim = qk_rope_head_dim
        self.kv_cache_dtype = kv_cache_dtype

    def _forward_decode(self, q, kv_c_and_k_pe_cache, attn_metadata, layer):
        c_kv, k_pe = torch.tensor_split(kv_c_and_k_pe_cache, (self.kv_lora_rank,), dim=-1)
        if self.kv_cache_dtype.startswith("fp8"):
            c_kv = c_kv.to(q.dtype)  # positive: f5 CL001 latent part by tensor_split on the last dim, every slot
            k_pe = k_pe.to(q.dtype)  # positive: f5 CL001 rope part, same split
        pages = torch.tensor_split(kv_c_and_k_pe_cache, 4, dim=0)[0].to(q.dtype)  # negative: first quarter of the blocks
        scale = layer._k_scale.to(q.dtype)  # negative: scale
        return c_kv, k_pe, pages, scale
