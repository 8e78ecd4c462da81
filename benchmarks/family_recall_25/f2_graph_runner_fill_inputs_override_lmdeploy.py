import torch


class CUDASingleGraphRunner:
    def __init__(self, model, max_batches):
        self.model = model
        self.max_batches = max_batches
        self.meta = {}

    def _fill_caches(self, past_key_values):
        return past_key_values

    def capture(self, **kwargs):
        caches = self._fill_caches(kwargs["past_key_values"])
        self.meta["caches"] = [(k.clone(), v.clone()) for k, v in caches]
        return caches

    def forward(self, **kwargs):
        caches = self._fill_caches(kwargs["past_key_values"])
        for (sk, sv), (k, v) in zip(self.meta["caches"], caches):
            sk.copy_(k)
            sv.copy_(v)
        return caches


class Fp16ShadowGraphRunner(CUDASingleGraphRunner):
    def _fill_caches(self, past_key_values):
        out = []
        for k_cache, v_cache in past_key_values:
            out.append((k_cache.half(), v_cache.half()))  # positive: f2 CL001 override widens each whole layer cache, reached from forward per replay
        return out
