"""f6: an lmdeploy-style FlashMLA impl: the latent k_cache (v_cache is None) is upcast in forward and a decode helper."""
import torch


class FlashMLAImplLite:
    def __init__(self, num_heads, kv_lora_rank=512, qk_rope_head_dim=64):
        self.num_heads = num_heads
        self.kv_lora_rank = kv_lora_rank
        self.qk_rope_head_dim = qk_rope_head_dim

    def forward(self, query, key, value, k_cache, v_cache, attn_metadata, k_scales_zeros=None, v_scales_zeros=None, learnable_sink=None):
        assert v_cache is None
        if attn_metadata.is_decoding:
            return self._decode(query, k_cache, attn_metadata)
        dense = k_cache.to(query.dtype) if k_cache.dtype == torch.float8_e4m3fn else k_cache  # positive: f6 CL001 whole latent cache upcast
        new_latent = key.to(query.dtype)  # negative: this step's latents
        return dense, new_latent

    def _decode(self, query, k_cache, attn_metadata):
        nope = k_cache[..., : self.kv_lora_rank].float()  # positive: f6 CL001 latent part of every slot, in a helper of forward
        blocks = k_cache[attn_metadata.block_offsets].float()  # negative: the step's blocks
        return nope, blocks
