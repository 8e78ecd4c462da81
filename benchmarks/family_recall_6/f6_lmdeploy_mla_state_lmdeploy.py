"""lmdeploy: MLA latent cache ([blocks, block_size, 1, 576]) next to per-request SSM state caches."""
import torch


class MLAFallbackImpl:
    def __init__(self, kv_lora_rank=512):
        self.kv_lora_rank = kv_lora_rank

    def forward(self, query, key, value, k_cache, v_cache, attn_metadata, k_scales_zeros=None, v_scales_zeros=None, inplace=True):
        kv_nope = k_cache[..., : self.kv_lora_rank].to(query.dtype)  # positive: f6 CL001 every token's latent part of the whole k_cache
        kv_all = k_cache.flatten(0, 1).to(query.dtype)  # positive: f6 CL001 the whole latent cache, token-major
        blk = k_cache[attn_metadata.block_offsets].to(query.dtype)  # negative: gather-then-cast
        return kv_nope, kv_all, blk


class GatedDeltaStateReader:
    def __init__(self, cache_engine):
        self.state_caches = cache_engine.state_caches

    def forward(self, hidden_states, attn_metadata, layer_idx):
        conv_state, recurrent_state = self.state_caches[layer_idx]
        rows = attn_metadata.state_ids
        c = conv_state[rows].float()  # negative: per-request conv state rows
        r = recurrent_state.to(torch.float32)  # negative: per-request recurrent state, sized by max batch, not a token pool
        return c, r
