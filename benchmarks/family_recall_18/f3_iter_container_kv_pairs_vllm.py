"""vLLM-style runner keeping a container over its layer caches; iterating it yields (key, value) planes."""
import torch


class LayerKVCaches:
    def __init__(self, names, caches):
        self._names = list(names)
        self._caches = list(caches)

    def __len__(self):
        return len(self._caches)

    def __iter__(self):
        for cache in self._caches:
            yield cache[0], cache[1]

    def __getitem__(self, name):
        return self._caches[self._names.index(name)]


class GPUModelRunner:
    def __init__(self, model, debug_kv_stats=False):
        self.model = model
        self.debug_kv_stats = debug_kv_stats
        self.kv_stats = []

    def initialize_kv_cache(self, kv_caches: dict):
        self.layer_kv = LayerKVCaches(kv_caches.keys(), kv_caches.values())
        self.kv_first = [k.float().mean() for k, _ in self.layer_kv]  # negative: one-time setup

    def execute_model(self, scheduler_output, block_ids):
        out = self.model(scheduler_output)
        if self.debug_kv_stats:
            for k, v in self.layer_kv:
                k_mean = k.float().abs().mean()  # positive: f3 CL001 key plane from __iter__ keeps every block
                v_max = v.to(torch.float32).abs().max()  # positive: f3 CL001 value plane keeps every block
                self.kv_stats.append((k_mean, v_max))
            probe = self.layer_kv[scheduler_output.probe_layer][:, block_ids].float()  # negative: scheduled blocks only
            self.kv_stats.append(probe.mean())
        return out
