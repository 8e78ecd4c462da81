import torch

from .base import KVReadingBackend


class XPULikeBackend(KVReadingBackend):
    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        key_cache, value_cache = self._kv_for(layer, forward_batch)
        key_cache = key_cache.to(self.model_dtype)  # positive: f7 CL001 base class in base.py returns whole pools
        value_cache = value_cache.to(self.model_dtype)  # positive: f7 CL001 base class in base.py returns whole pools
        sc = self._scale_for(layer)
        if sc is not None:
            sc = sc.to(self.model_dtype)  # negative: scale
        return key_cache, value_cache, sc
