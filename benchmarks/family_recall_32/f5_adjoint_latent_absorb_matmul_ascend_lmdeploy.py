"""lmdeploy Ascend MLA torch fallback: scores against the whole latent cache through .adjoint()."""
import torch


class AscendMLATorchFallback:
    def __init__(self, kv_lora_rank=512, compute_dtype=torch.float16):
        self.kv_lora_rank = kv_lora_rank
        self.compute_dtype = compute_dtype

    def forward(self, q_latent, k_cache, attn_metadata):
        latent = k_cache.flatten(0, 1)[..., : self.kv_lora_rank]  # [blocks * block_size, 1, 512]
        if attn_metadata.is_decoding:
            kt = latent.squeeze(1).adjoint().to(self.compute_dtype)  # positive: f5 CL001 every slot's latent part, transposed by adjoint
        else:
            rows = attn_metadata.kv_flat_slots
            kt = latent.squeeze(1)[rows].adjoint().to(self.compute_dtype)  # negative: slot gather before the cast
        q = q_latent.to(self.compute_dtype)  # negative: query
        return torch.matmul(q, kt)

    def update_step_context(self, step_ctx):
        return step_ctx
