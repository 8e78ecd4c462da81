import torch


class CtorConnector:
    def __init__(self):
        self.caches = {}

    def register_kv_caches(self, kv_caches):
        self.caches = kv_caches
        self.probe = {n: torch.as_tensor(t, dtype=torch.float16) for n, t in kv_caches.items()}  # negative: registration-time

    def save_kv_layer(self, layer_name, kv_layer, attn_metadata, **kwargs):
        a = torch.as_tensor(kv_layer.data, dtype=torch.bfloat16)  # positive: f5 CL001 as_tensor of the whole layer with a dtype
        b = kv_layer.new_tensor(kv_layer, dtype=torch.float32)  # positive: f5 CL001 new_tensor copy with a dtype
        c = torch.empty_like(kv_layer, dtype=torch.float16)
        c.copy_(kv_layer)  # positive: f5 CL001 copy_ into an empty_like of another dtype
        d = torch.zeros_like(kv_layer, dtype=torch.float16)  # negative: allocation only
        e = torch.tensor(attn_metadata.slot_mapping, dtype=torch.int64)  # negative: slot mapping
        return a, b, c, d, e

    def wait_for_save(self):
        for name, t in self.caches.items():
            _ = torch.empty_like(t, dtype=torch.bfloat16).copy_(t)  # positive: f5 CL001 chained empty_like(...).copy_ of every registered cache
