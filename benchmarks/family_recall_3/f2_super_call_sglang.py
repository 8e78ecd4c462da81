import torch


class CacheBackendBase:
    def __init__(self, model_runner):
        self.token_to_kv_pool = model_runner.token_to_kv_pool

    def _cache(self, layer):
        return self.token_to_kv_pool.get_kv_buffer(layer.layer_id)

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        k_cache, v_cache = self._cache(layer)
        return k_cache, v_cache


class UpcastingBackend(CacheBackendBase):
    def _cache(self, layer):
        k_cache, v_cache = super()._cache(layer)
        return k_cache, v_cache

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        k_cache, v_cache = super()._cache(layer)
        k_cache = k_cache.float()  # positive: f2 CL001 whole key pool from super()._cache
        v_cache = v_cache.float()  # positive: f2 CL001 whole value pool from super()._cache
        return k_cache, v_cache

    def forward_extend(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        kc, _ = self._cache(layer)
        kc16 = kc.to(torch.float16)  # positive: f2 CL001 overridden _cache still returns the whole pool
        q32 = q.float()  # negative: batch q
        return kc16, q32
