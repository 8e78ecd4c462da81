"""A vLLM TPU Pallas-style impl: a reference path upcasts the whole fused KV cache to float32."""
import torch


class PallasImplLike:
    def __init__(self, num_heads, head_size, use_reference=False):
        self.num_heads = num_heads
        self.head_size = head_size
        self.use_reference = use_reference

    def forward(self, layer, query, key, value, kv_cache, attn_metadata, output=None):
        if kv_cache.numel() == 0:
            return output
        new_kv = torch.cat([key, value], dim=-1).to(kv_cache.dtype)  # negative: this step's keys/values, writer side
        kv_cache.index_copy_(0, attn_metadata.slot_mapping, new_kv)
        if self.use_reference:
            ref = kv_cache.to(torch.float32)  # positive: f6 CL001 reference path upcasts the whole fused cache
            return ref
        ctx = attn_metadata.context_lens.to(torch.int32)  # negative: context lengths
        return ctx
