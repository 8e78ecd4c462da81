import torch


class KeyedCachesRunner:
    def __init__(self, num_layers, dtype):
        self.num_layers = num_layers
        self.dtype = dtype
        self.caches = {}

    def initialize_kv_cache(self, kv_cache_config, raw):
        for i in range(self.num_layers):
            self.caches[f"model.layers.{i}.attn.k"] = raw[i][0]
            self.caches[f"model.layers.{i}.attn.v"] = raw[i][1]
            self.caches[f"model.layers.{i}.attn.scale"] = torch.ones(1)

    def execute_model(self, scheduler_output, intermediate_tensors=None):
        i = scheduler_output.layer_hint
        k = self.caches[f"model.layers.{i}.attn.k"].to(self.dtype)  # positive: f3 CL001 registered cache under an f-string key
        v = self.caches.get(f"model.layers.{i}.attn.v").to(self.dtype)  # positive: f3 CL001 value cache via .get with an f-string key
        s = self.caches[f"model.layers.{i}.attn.scale"].to(self.dtype)  # negative: one-element scale under the same naming
        return k, v, s
