import weakref

import torch


class LayerCacheRef:
    def __init__(self, k, v):
        self.k = k
        self.v = v


class WeakMapAttention:
    live = weakref.WeakValueDictionary()

    def __init__(self, layer_idx):
        self.layer_idx = layer_idx

    @classmethod
    def attach(cls, cache_engine):
        cls._keep = [LayerCacheRef(k, v) for k, v in cache_engine.gpu_cache]
        for i, ref in enumerate(cls._keep):
            cls.live[i] = ref

    def forward(self, query, key, value, attn_metadata):
        ref = self.live.get(self.layer_idx)
        if ref is None:
            return None
        kd = ref.k.to(query.dtype)  # positive: f1 CL001 object from a WeakValueDictionary holding the layer's k cache
        kl = attn_metadata.kv_seqlens.to(torch.int32)  # negative: lengths
        return kd, kl
