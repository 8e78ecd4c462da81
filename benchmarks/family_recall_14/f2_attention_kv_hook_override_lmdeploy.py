"""A model attention whose fp32 subclass overrides the _kv_for_attn hook of forward."""
import torch
from torch import nn


class LlamaAttention(nn.Module):
    def _kv_for_attn(self, past_key_value):
        return past_key_value[0], past_key_value[1]

    def forward(self, hidden_states, rotary_pos_emb, past_key_value, attn_metadata):
        qkv_states = self.qkv_proj(hidden_states)
        query_states, key_states, value_states = self.qkv_proj.split_qkv(qkv_states)
        cos, sin = rotary_pos_emb
        query_states, key_states = self.apply_rotary_pos_emb(query_states, key_states, cos, sin)
        k_cache, v_cache = self._kv_for_attn(past_key_value)
        attn_output = self.attn_fwd(query_states, key_states, value_states, k_cache, v_cache, attn_metadata)
        return self.o_proj(attn_output.reshape(*hidden_states.shape[:-1], -1))


class Fp32AttentionVariant(LlamaAttention):
    """For checkpoints trained with fp32 attention: the paged cache is read in fp32."""

    def _kv_for_attn(self, past_key_value):
        k_cache = past_key_value[0].float()  # positive: f2 CL001 whole key cache, called from the inherited forward
        v_cache = past_key_value[1].float()  # positive: f2 CL001 whole value cache
        return k_cache, v_cache

    def forward(self, hidden_states, rotary_pos_emb, past_key_value, attn_metadata):
        out = super().forward(hidden_states.float(), rotary_pos_emb, past_key_value, attn_metadata)  # negative: hidden states
        return out.to(hidden_states.dtype)  # negative: attention output
