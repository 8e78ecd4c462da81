import torch


class DtypeGroupedConnector:
    def __init__(self, vllm_config, role):
        self.by_dtype = {}
        self.target = torch.bfloat16

    def register_kv_caches(self, kv_caches):
        for name, cache in kv_caches.items():
            self.by_dtype.setdefault(cache.dtype, []).append((name, cache))

    def save_kv_layer(self, layer_name, kv_layer, attn_metadata, **kwargs):
        fp8 = self.by_dtype.get(torch.float8_e4m3fn, [])
        for name, cache in fp8:
            if name == layer_name:
                out = cache.to(self.target)  # positive: f3 CL001 registered cache from a dict grouped by dtype
                self._send(name, out)
        slots = attn_metadata.slot_mapping
        self._send(layer_name, kv_layer[:, slots].to(self.target))  # negative: gathered slots of the layer

    def _send(self, name, t):
        pass
