# lmdeploy on Cambricon MLU (dlinfer), DeepSeek MLA decode: the MLU MLA op has no FP8 latent input, so the
# backend widens the nope and rope last-dim parts of the layer's cache on every decode.
import torch


class CambMLADecode:
    def __init__(self, kv_lora_rank=512, qk_rope_head_dim=64, compute_dtype=torch.bfloat16):
        self.kv_lora_rank = kv_lora_rank
        self.rope_dim = qk_rope_head_dim
        self.compute_dtype = compute_dtype

    def forward(self, query, k_cache, attn_metadata):
        # k_cache: [num_blocks, block_size, 1, kv_lora_rank + rope_dim]
        r = self.kv_lora_rank
        if attn_metadata.is_decoding:
            latent = k_cache[..., :r].to(self.compute_dtype)  # positive: f6 CL001 nope part of every slot of the layer
            rope = k_cache[..., r:].to(self.compute_dtype)  # positive: f6 CL001 rope part of every slot of the layer
        else:
            first = attn_metadata.block_offsets[:, 0]
            latent = k_cache[first, ..., :r].to(self.compute_dtype)  # negative: first block of each sequence
            rope = k_cache[first, ..., r:].to(self.compute_dtype)  # negative: first block of each sequence
        q_pe = query[..., r:].to(self.compute_dtype)  # negative: the query's rope part
        return self._mlu_mla(query, latent, rope, q_pe, attn_metadata.block_offsets)
