"""A read-only MappingProxyType over the runner's KV caches, walked in sorted order."""
from types import MappingProxyType

import torch


class KVExporter:
    def register_kv_caches(self, kv_caches: dict[str, torch.Tensor]):
        self.view = MappingProxyType(kv_caches)
        self.half_cache = {n: t.half() for n, t in kv_caches.items()}  # negative: registration-time conversion

    def start_load_kv(self, forward_context, **kwargs):
        pass

    def save_kv_layer(self, layer_name, kv_layer, attn_metadata, **kwargs):
        ordered = sorted(self.view.items())
        _, first = ordered[0]
        a = first.to(torch.bfloat16)  # positive: f3 CL001 first layer's whole cache from the sorted proxy items
        b = self.view.get(layer_name).float()  # positive: f3 CL001 this layer's whole cache via the proxy
        slots = attn_metadata.slot_mapping
        c = kv_layer.flatten(1, 2)[:, slots].to(torch.bfloat16)  # negative: gathered at the step's slots
        names = sorted(self.view, key=len)
        d = self.view[names[-1]].to(torch.bfloat16)  # positive: f3 CL001 whole cache, key chosen by sorting the names
        e = self.view[layer_name].to("cpu")  # negative: device move, no dtype
        return a, b, c, d
