import torch


class QuantCacheEngine:
    def __init__(self, gpu_cache, k_scales_zeros, v_scales_zeros, quant_policy):
        self.gpu_cache = gpu_cache
        self.k_scales_zeros = k_scales_zeros
        self.v_scales_zeros = v_scales_zeros
        self.quant_policy = quant_policy

    def get_layer(self, layer_idx, dense=False):
        k, v = self.gpu_cache[layer_idx]
        if dense and self.quant_policy == 8:
            k = k.to(torch.float16)  # positive: f6 CL004 keyword-gated conversion of the whole K cache in the engine accessor
            v = v.to(torch.float16)  # positive: f6 CL004 same for the V cache
        return k, v

    def get_scales(self, layer_idx):
        return self.k_scales_zeros[layer_idx].to(torch.float16)  # negative: scales/zeros of the layer


class FlagAccessorImpl:
    def __init__(self, cache_engine, layer_idx):
        self.cache_engine = cache_engine
        self.layer_idx = layer_idx

    def forward(self, query, key, value, attn_metadata):
        if attn_metadata.is_decoding:
            k, v = self.cache_engine.get_layer(self.layer_idx, dense=True)  # note: CL004 accessor, not labelled again
        else:
            k, v = self.cache_engine.get_layer(self.layer_idx)
        q = query.to(torch.float16)  # negative: batch query
        return q, k, v
