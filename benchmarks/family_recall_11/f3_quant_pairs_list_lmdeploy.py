import torch


class QuantCacheAttention:
    def __init__(self, cache_engine, layer_idx):
        self.layer_idx = layer_idx
        self.quant_caches = [
            ((k, ks), (v, vs))
            for (k, v), (ks, vs) in zip(cache_engine.gpu_cache, cache_engine.gpu_scales)
        ]

    def forward(self, query, key, value, attn_metadata):
        (k_cache, k_sz), (v_cache, v_sz) = self.quant_caches[self.layer_idx]
        k_scale = k_sz.float()  # negative: scales/zeros of the layer
        if attn_metadata.is_decoding:
            k_deq = k_cache.float() * k_scale[..., :1]  # positive: f3 CL001 whole int8 K cache from a (cache, scale) pair list
            v_deq = torch.mul(v_cache.half(), v_sz.half())  # positive: f3 CL001 whole int8 V cache from the same pairs
            return k_deq, v_deq
        fill = attn_metadata.fill_seqlens.to(torch.int32)  # negative: lengths
        return key.half(), fill  # negative: the step's keys
