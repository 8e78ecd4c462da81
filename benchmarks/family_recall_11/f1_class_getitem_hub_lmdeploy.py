import torch


class CacheHub:
    """Per-layer caches reached with CacheHub[layer_idx] through __class_getitem__."""

    _caches = []
    scales = []

    @classmethod
    def bind(cls, cache_engine):
        cls._caches = cache_engine.gpu_cache
        cls.scales = [torch.ones(1) for _ in cache_engine.gpu_cache]

    def __class_getitem__(cls, idx):
        return cls._caches[idx]


class HubAttention:
    def __init__(self, layer_idx):
        self.layer_idx = layer_idx

    def forward(self, query, key, value, attn_metadata):
        k_cache, v_cache = CacheHub[self.layer_idx]
        if attn_metadata.is_decoding:
            k_cache = k_cache.float()  # positive: f1 CL001 whole K cache of the layer from __class_getitem__
            v_cache = v_cache.float()  # positive: f1 CL001 whole V cache of the layer
        s = CacheHub.scales[self.layer_idx].float()  # negative: per-layer scale
        kv_seqlens = attn_metadata.kv_seqlens.to(torch.int32)  # negative: lengths
        return k_cache, v_cache, s, kv_seqlens
