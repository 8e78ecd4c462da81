import torch


def bind_layers(forward_context: dict, kv_caches: dict, virtual_engine: int):
    for name, layer in forward_context.items():
        layer.kv_cache[virtual_engine] = kv_caches[name]


class DebugPPWorker:
    def __init__(self, forward_context, model_dtype):
        self.forward_context = forward_context
        self.model_dtype = model_dtype

    def execute_model(self, scheduler_output, virtual_engine: int = 0):
        out = {}
        for name, layer in self.forward_context.items():
            cache = layer.kv_cache[virtual_engine]
            out[name] = cache.to(self.model_dtype)  # positive: f3 CL001 whole cache picked from the per-virtual-engine list
            out[name + ".len"] = torch.tensor(len(layer.kv_cache))  # negative: list length
            out[name + ".k0"] = cache[0, :2].to(self.model_dtype)  # negative: two blocks only
        return out
