import torch


class LatentCommonImpl:
    def __init__(self, kv_lora_rank: int, qk_rope_head_dim: int):
        self.kv_lora_rank = kv_lora_rank
        self.qk_rope_head_dim = qk_rope_head_dim

    def _as_tokens(self, kv_c_and_k_pe_cache: torch.Tensor) -> torch.Tensor:
        return kv_c_and_k_pe_cache.view(-1, kv_c_and_k_pe_cache.shape[-1])

    def _latent_only(self, kv_c_and_k_pe_cache: torch.Tensor) -> torch.Tensor:
        return kv_c_and_k_pe_cache[..., : self.kv_lora_rank]

    def forward_mqa(self, q, kv_c_and_k_pe_cache, attn_metadata, layer):
        raise NotImplementedError
