import torch
from torch import nn


class LayerCache(nn.Module):
    def __init__(self, shape):
        super().__init__()
        self.register_buffer("cache", torch.empty(shape, dtype=torch.float8_e4m3fn), persistent=False)


class DictCacheEngine(nn.Module):
    def __init__(self, names, shape):
        super().__init__()
        self.layers = nn.ModuleDict({n: LayerCache(shape) for n in names})

    def forward(self, name, query, attn_metadata):
        t = self.layers[name].cache
        up = t.to(query.dtype)  # positive: f3 CL001 ModuleDict entry's buffer
        all_up = {n: m.cache.float() for n, m in self.layers.items()}  # positive: f3 CL001 every ModuleDict entry
        first = next(iter(self.layers.values())).cache.bfloat16()  # positive: f3 CL001 first entry via next(iter(values()))
        q_seq = attn_metadata.q_seqlens.to(torch.int32)  # negative: lengths
        return up, all_up, first, q_seq
