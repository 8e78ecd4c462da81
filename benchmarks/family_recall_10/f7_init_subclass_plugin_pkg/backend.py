from . import impls  # noqa: F401  (registers the plugins)
from .base import AttnImplBase


class PluginAttention:
    def __init__(self, cache_engine, layer_idx, kind="fp8"):
        self.cache_engine = cache_engine
        self.layer_idx = layer_idx
        self.impl = AttnImplBase.registry[kind]()

    def forward(self, query, key, value, attn_metadata):
        k_cache, v_cache = self.cache_engine.gpu_cache[self.layer_idx]
        k = self.impl.prepare(k_cache, query.dtype)
        new_k = key.to(k_cache.dtype)  # negative: this step's keys
        return k, new_k
