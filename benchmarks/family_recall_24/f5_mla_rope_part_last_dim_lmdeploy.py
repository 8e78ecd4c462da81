# lmdeploy DeepSeek MLA without FlashMLA: the cache is [blocks, block_size, 1, 576];
# the rope part is the last 64 channels.
import torch


class TritonMLAImpl:
    def forward(self, query, key, value, k_cache, v_cache, attn_metadata, k_scales_zeros=None, v_scales_zeros=None):
        kv_lora_rank = self.kv_lora_rank
        rope = k_cache[..., kv_lora_rank:].to(query.dtype)  # positive: f5 CL001 last-dim part keeps every slot
        blocks = attn_metadata.block_offsets.flatten()
        latent = k_cache[blocks][..., :kv_lora_rank].to(query.dtype)  # negative: blocks first
        return self._mla_decode(query, latent, rope, attn_metadata)

    def fill_kv(self, k_cache, kv_c, k_pe, attn_metadata):
        new = torch.cat([kv_c, k_pe], dim=-1).to(k_cache.dtype)  # negative: new tokens written into the cache
        k_cache.view(-1, k_cache.size(-1))[attn_metadata.fill_slots] = new
        return k_cache
