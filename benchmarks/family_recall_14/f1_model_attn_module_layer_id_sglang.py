"""A model-side torch absorb path that reads the pool through its RadixAttention's layer id."""
import torch
from torch import nn


class DeepseekV2AttentionMLA(nn.Module):
    def forward(self, positions, hidden_states, forward_batch, zero_allocator=None):
        if forward_batch.forward_mode.is_decode() and self.use_torch_absorb:
            return self.forward_absorb_torch(positions, hidden_states, forward_batch)
        return self.forward_normal(positions, hidden_states, forward_batch)

    def forward_absorb_torch(self, positions, hidden_states, forward_batch):
        q = self.q_b_proj(self.q_a_layernorm(self.q_a_proj(hidden_states)[0]))[0]
        q = q.view(-1, self.num_local_heads, self.qk_head_dim)
        pool = forward_batch.token_to_kv_pool
        if self.gather_rows:
            loc = forward_batch.req_to_token_pool.req_to_token[forward_batch.req_pool_indices]
            latent = pool.get_key_buffer(self.attn_mqa.layer_id)[loc.flatten()].to(q.dtype)  # negative: rows of the batch
        else:
            latent = pool.get_key_buffer(self.attn_mqa.layer_id).to(q.dtype)  # positive: f1 CL001 whole latent layer found via self.attn_mqa.layer_id
        residual = hidden_states.to(torch.float32)  # negative: hidden states, not the cache
        out = self._absorbed_attention(q, latent, forward_batch)
        return self.o_proj(out)[0] + residual.to(out.dtype)  # negative: hidden states
