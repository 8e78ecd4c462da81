"""MLA forward_mqa fallback: .to keyword spellings with the dtype read from the model config."""
import torch


class MLAEagerFallbackImpl:
    def __init__(self, vllm_config, kv_lora_rank, qk_rope_head_dim):
        self.model_config = vllm_config.model_config
        self.kv_lora_rank = kv_lora_rank
        self.qk_rope_head_dim = qk_rope_head_dim

    def forward_mqa(self, q, kv_c_and_k_pe_cache, attn_metadata, layer):
        latent = kv_c_and_k_pe_cache[..., : self.kv_lora_rank].to(dtype=self.model_config.dtype)  # positive: f5 CL001 last-dim slice keeps every slot
        rope = kv_c_and_k_pe_cache[..., self.kv_lora_rank :].to(device=q.device, dtype=q.dtype)  # positive: f5 CL001 rope part of every slot
        moved = kv_c_and_k_pe_cache.to(non_blocking=True, device=q.device)  # negative: a device only
        same = kv_c_and_k_pe_cache.to(dtype=kv_c_and_k_pe_cache.dtype, copy=True)  # negative: same dtype copy
        bt = attn_metadata.decode.block_table
        rows = kv_c_and_k_pe_cache[bt].to(dtype=self.model_config.dtype)  # negative: the batch's blocks
        return self._mqa(q, latent, rope, rows, moved, same, attn_metadata)
