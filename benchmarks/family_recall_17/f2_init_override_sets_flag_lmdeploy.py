"""lmdeploy: the base model attention widens its cache when `dequant_on_read` is set; the
Volta subclass sets it in its own __init__ after super().__init__."""
import torch


class LlamaAttentionBase(torch.nn.Module):
    def __init__(self, config, layer_idx):
        super().__init__()
        self.layer_idx = layer_idx
        self.dequant_on_read = False
        self.head_dim = config.hidden_size // config.num_attention_heads

    def forward(self, hidden_states, past_key_value, attn_metadata, rotary_pos_emb=None):
        k_cache, v_cache = past_key_value
        if self.dequant_on_read:
            k_cache = k_cache.half()  # positive: f2 CL001 whole key cache when the subclass sets the flag
        rope = rotary_pos_emb[0].to(hidden_states.dtype) if rotary_pos_emb else None  # negative: rotary table
        return self.attn_fwd(hidden_states, k_cache, v_cache, attn_metadata, rope)


class VoltaLlamaAttention(LlamaAttentionBase):
    def __init__(self, config, layer_idx):
        super().__init__(config, layer_idx)
        self.dequant_on_read = True
