import torch


class LayerCacheHandle:
    def __init__(self, ctx, layer_idx):
        self.ctx = ctx
        self.layer_idx = layer_idx

    @property
    def k_cache(self):
        return self.ctx.kv_caches[self.layer_idx][0]

    @property
    def v_cache(self):
        return self.ctx.kv_caches[self.layer_idx][1]

    @property
    def k_scales(self):
        return self.ctx.kv_quant_params[self.layer_idx][0]


class LlamaAttentionFallback(torch.nn.Module):
    def forward(self, hidden_states, past_key_value, attn_metadata, layer_idx):
        handle = LayerCacheHandle(attn_metadata, layer_idx)
        k = handle.k_cache.to(hidden_states.dtype)  # positive: f1 CL001 whole layer via a property of a handle
        v = handle.v_cache.float().to(hidden_states.dtype)  # positive: f1 CL001 one finding for the chained casts
        s = handle.k_scales.to(hidden_states.dtype)  # negative: quant scales, not the cache
        last = handle.k_cache[attn_metadata.block_offsets[:, -1]].to(hidden_states.dtype)  # negative: last blocks
        return k, v, s, last
