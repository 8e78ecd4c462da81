import torch


class CacheHandle:
    def __init__(self, tensor):
        self.tensor = tensor

    @classmethod
    def of_layer(cls, runner, name):
        return cls(runner.kv_caches[name])

    @classmethod
    def of_rows(cls, runner, name, slots):
        return cls(runner.kv_caches[name][slots])


class HandleConnector:
    def __init__(self, runner):
        self.runner = runner

    def start_load_kv(self, forward_context, **kwargs):
        for name in self.runner.kv_caches:
            h = CacheHandle.of_layer(self.runner, name)
            _ = h.tensor.to(torch.float16)  # positive: f1 CL001 handle built by a classmethod around a registered cache

    def save_kv_layer(self, layer_name, kv_layer, attn_metadata, **kwargs):
        h = CacheHandle.of_rows(self.runner, layer_name, attn_metadata.slot_mapping)
        return h.tensor.to(torch.float16)  # negative: rows gathered by the classmethod
