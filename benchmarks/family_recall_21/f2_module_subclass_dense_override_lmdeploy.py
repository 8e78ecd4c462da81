import torch
from torch import nn


class LlamaAttention(nn.Module):
    def __init__(self, hidden_size, num_heads):
        super().__init__()
        self.num_heads = num_heads
        self.o_proj = nn.Linear(hidden_size, hidden_size, bias=False)

    def _kv_inputs(self, past_key_value):
        return past_key_value[0], past_key_value[1]

    def forward(self, hidden_states, past_key_value, attn_metadata):
        k_cache, v_cache = self._kv_inputs(past_key_value)
        return self.attn_fwd(hidden_states, k_cache, v_cache, attn_metadata)


class LlamaAttentionMaca(LlamaAttention):
    """MACA devices: the paged kernel takes fp16 only, the int8 cache is widened."""

    def _kv_inputs(self, past_key_value):
        k_cache, v_cache = super()._kv_inputs(past_key_value)
        k_dense = k_cache.to(torch.float16)  # positive: f2 CL001 whole int8 key cache, per forward
        v_dense = v_cache.to(torch.float16)  # positive: f2 CL001 whole int8 value cache
        return k_dense, v_dense

    def update_weights(self):
        self.o_proj.weight.data = self.o_proj.weight.data.to(torch.float16)  # negative: weights at load time
