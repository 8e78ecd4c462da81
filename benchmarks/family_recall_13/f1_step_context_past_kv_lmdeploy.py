import torch
from torch import nn


class StepContext:
    def __init__(self, q_seqlens, kv_seqlens, block_offsets, kv_caches):
        self.q_seqlens = q_seqlens
        self.kv_seqlens = kv_seqlens
        self.block_offsets = block_offsets
        self.kv_caches = kv_caches


class LlamaAttention(nn.Module):
    def __init__(self, layer_idx, dtype):
        super().__init__()
        self.layer_idx = layer_idx
        self.dtype = dtype

    def forward(self, hidden_states, context: StepContext, attn_impl):
        past_key_value = context.kv_caches[self.layer_idx]
        k_cache, v_cache = past_key_value
        k_dense = k_cache.to(self.dtype)  # positive: f1 CL001 layer cache taken from the step context
        v_dense = v_cache.to(self.dtype)  # positive: f1 CL001 layer cache taken from the step context
        q_start = context.q_seqlens.cumsum(0).to(torch.int32)  # negative: step lengths
        offsets = context.block_offsets.to(torch.int32)  # negative: block table of the step
        return attn_impl(hidden_states, k_dense, v_dense, q_start, offsets)
