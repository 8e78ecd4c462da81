import torch


class MLAUpProjFallback:
    """Projects the cached latent through W_UK for an MHA-style decode without an FP8 kernel."""

    def __init__(self, W_UK: torch.Tensor, kv_lora_rank: int):
        self.W_UK = W_UK
        self.kv_lora_rank = kv_lora_rank

    def forward_decode(self, q, kv_c_and_k_pe_cache, attn_metadata, layer):
        latent = kv_c_and_k_pe_cache[..., : self.kv_lora_rank]
        k_nope = torch.tensordot(latent.to(self.W_UK.dtype), self.W_UK, dims=([-1], [0]))  # positive: f5 CL001 last-dim part of the whole cache
        active = latent[attn_metadata.decode.block_table]
        k_act = torch.tensordot(active.to(self.W_UK.dtype), self.W_UK, dims=([-1], [0]))  # negative: blocks first
        w = self.W_UK.to(q.dtype)  # negative: weight
        return k_nope, k_act, w
