"""A model forward that wraps past_key_values in a small accessor object."""
import torch
from torch import nn


class PagedCaches:
    def __init__(self, past_key_values):
        self._pkv = past_key_values

    def key(self, i):
        return self._pkv[i][0]

    def value(self, i):
        return self._pkv[i][1]

    def scales(self, i):
        return self._pkv[i][2] if len(self._pkv[i]) > 2 else None


class Qwen2ModelEagerFallback(nn.Module):
    def forward(self, input_ids, position_ids, past_key_values, attn_metadata, inputs_embeds=None):
        caches = PagedCaches(past_key_values)
        hidden_states = self.embed_tokens(input_ids) if inputs_embeds is None else inputs_embeds
        residual = None
        for idx, decoder_layer in enumerate(self.layers):
            k_cache = caches.key(idx).half()  # positive: f1 CL001 whole key cache of layer idx, through the wrapper
            v_cache = caches.value(idx).half()  # positive: f1 CL001 whole value cache of layer idx
            sz = caches.scales(idx)
            if sz is not None:
                sz = sz.float()  # negative: the layer's scales/zeros, not the cache
            hidden_states, residual = decoder_layer(hidden_states, position_ids, (k_cache, v_cache, sz), residual, attn_metadata)
        hidden_states, _ = self.norm(hidden_states, residual)
        return hidden_states.float()  # negative: hidden states
