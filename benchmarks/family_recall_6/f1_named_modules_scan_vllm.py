"""A runner finds attention layers with named_modules()/get_submodule() and reads their kv_cache."""
import torch
from torch import nn


class Attention(nn.Module):
    def __init__(self, prefix):
        super().__init__()
        self.layer_name = prefix
        self.kv_cache = [torch.tensor([])]
        self._k_scale = torch.tensor(1.0)


def bind_caches(model, kv_caches):
    for name, module in model.named_modules():
        if isinstance(module, Attention):
            module.kv_cache = [kv_caches[name]]


class KVOffloadRunner:
    def __init__(self, model, dtype=torch.bfloat16):
        self.model = model
        self.dtype = dtype

    def execute_model(self, scheduler_output):
        host = {}
        for name, module in self.model.named_modules():
            if not isinstance(module, Attention):
                continue
            host[name] = module.kv_cache[0].to(self.dtype)  # positive: f1 CL001 the layer's whole bound cache
            scale = module._k_scale.float()  # negative: per-layer scale
        first = scheduler_output.first_layer
        att = self.model.get_submodule(first)
        lane = att.kv_cache[0]
        half = lane[0].half()  # positive: f1 CL001 every block's K half of the bound cache
        slots = scheduler_output.slot_mapping.to(torch.int64)  # negative: slot mapping
        moved = lane.to("cpu", non_blocking=True)  # negative: device move, no dtype
        return host, half, slots
