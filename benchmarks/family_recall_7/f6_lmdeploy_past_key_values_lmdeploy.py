"""f6: lmdeploy model forward receives past_key_values from the cache engine; decoder attention unpacks its pair."""
import torch
from torch import nn


class LlamaAttentionLite(nn.Module):
    def __init__(self, layer_idx):
        super().__init__()
        self.layer_idx = layer_idx

    def forward(self, hidden_states, rotary_pos_emb, past_key_value, attn_metadata):
        k_cache, v_cache = past_key_value
        k32 = k_cache.float()  # positive: f6 CL001 whole k_cache of this layer
        v16 = past_key_value[1].to(hidden_states.dtype)  # positive: f6 CL001 whole v_cache
        h = hidden_states.float()  # negative: activations
        offs = attn_metadata.block_offsets.to(torch.int64)  # negative: block offsets
        return h, k32, v16, offs


class LlamaModelLite(nn.Module):
    def __init__(self, num_layers):
        super().__init__()
        self.layers = nn.ModuleList(LlamaAttentionLite(i) for i in range(num_layers))

    def forward(self, hidden_states, rotary_pos_emb, past_key_values, attn_metadata):
        for idx, layer in enumerate(self.layers):
            hidden_states = layer(hidden_states, rotary_pos_emb, past_key_values[idx], attn_metadata)[0]
        return hidden_states


class ModelAgentLite:
    def __init__(self, model: LlamaModelLite, cache_engine):
        self.model = model
        self.cache_engine = cache_engine

    def forward(self, inputs, attn_metadata):
        return self.model(inputs.hidden, inputs.rope, self.cache_engine.gpu_cache, attn_metadata)
