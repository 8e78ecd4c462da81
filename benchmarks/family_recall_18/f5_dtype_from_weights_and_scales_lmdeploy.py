"""lmdeploy-style model attention taking the read dtype from a weight, a scale and the cache itself."""
import torch
from torch import nn


class Fp8FallbackLlamaAttention(nn.Module):
    def __init__(self, hidden_size, num_heads, head_dim, widen_cache=True):
        super().__init__()
        self.o_proj = nn.Linear(num_heads * head_dim, hidden_size, bias=False)
        self.register_buffer("kv_scale", torch.ones((), dtype=torch.float32))
        self.widen_cache = widen_cache

    def forward(self, hidden_states, rotary_pos_emb, past_key_value, attn_metadata):
        k_cache, v_cache = past_key_value[:2]
        if self.widen_cache:
            k_dense = k_cache.to(self.o_proj.weight.dtype)  # positive: f5 CL001 dtype from the projection weight
            v_dense = v_cache.to(self.kv_scale.dtype) * self.kv_scale  # positive: f5 CL001 dtype from the fp32 scale
        else:
            k_dense = k_cache.to(past_key_value[0].dtype)  # negative: the cache's own dtype
            v_dense = v_cache.view(v_cache.dtype)  # negative: no conversion
        scale = self.kv_scale.to(hidden_states.dtype)  # negative: the scale, not the cache
        return self._paged(hidden_states, k_dense, v_dense, attn_metadata, scale)

    def _paged(self, hidden_states, k_dense, v_dense, attn_metadata, scale):
        return self.o_proj(hidden_states)
