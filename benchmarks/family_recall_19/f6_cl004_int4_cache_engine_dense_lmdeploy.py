import torch


class CacheEngine:
    """quant_policy 4: two int4 codes per uint8 in the paged caches."""

    def __init__(self, gpu_cache, quant_policy, model_dtype):
        self.gpu_cache = gpu_cache
        self.quant_policy = quant_policy
        self.model_dtype = model_dtype

    def dense_key(self, layer_idx):
        k_cache = self.gpu_cache[layer_idx][0]
        if self.quant_policy == 4:
            return torch.cat([(k_cache & 0xF), (k_cache >> 4)], dim=-1).to(self.model_dtype)  # positive: f6 CL004 accessor unpacks the whole layer
        return k_cache

    def key_scales(self, layer_idx):
        return self.gpu_cache[layer_idx][2].to(self.model_dtype)  # negative: scales/zeros plane


class W4Attention(torch.nn.Module):
    def __init__(self, layer_idx, cache_engine):
        super().__init__()
        self.layer_idx = layer_idx
        self.cache_engine = cache_engine

    def forward(self, hidden_states, attn_metadata):
        k = self.cache_engine.dense_key(self.layer_idx)  # note: per-step caller of the CL004 accessor
        return k, self.cache_engine.key_scales(self.layer_idx)
