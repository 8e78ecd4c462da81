"""lmdeploy MLA fallback on SM80 (no FlashMLA): index_select on the LAST dim (rope de-interleave permutation) keeps every slot."""
import torch


class AmpereMLAFallback:
    def __init__(self, kv_lora_rank=512, rope_dim=64, dtype=torch.bfloat16):
        self.rank, self.dtype = kv_lora_rank, dtype
        half = torch.arange(0, rope_dim, 2)
        self.perm = torch.cat([torch.arange(kv_lora_rank), kv_lora_rank + half, kv_lora_rank + half + 1])

    def forward(self, query, key, value, past_key_value, attn_metadata):
        k_cache = past_key_value[0]
        perm = self.perm.to(k_cache.device)  # negative: index vector moved to the device
        if attn_metadata.is_decoding:
            latent = torch.index_select(k_cache, -1, perm).to(self.dtype)  # positive: f5 CL001 last-dim permutation of the whole cache
            return self._mla_decode(query, latent, attn_metadata)
        blocks = attn_metadata.block_offsets.flatten()
        rows = torch.index_select(k_cache, 0, blocks).index_select(-1, perm).to(self.dtype)  # negative: blocks selected on dim 0 first
        return self._mla_prefill(query, rows, attn_metadata)
