import torch


class HookedSaveConnector:
    def __init__(self, vllm_config, role):
        self._layer_hooks = []
        self._staged = {}

    def register_kv_caches(self, kv_caches):
        self._layer_hooks.append(self._stage_fp16)
        self._layer_hooks.append(self._checksum)
        self._ref = {n: c.float() for n, c in list(kv_caches.items())[:1]}  # negative: registration (one-time)

    def _stage_fp16(self, layer_name, kv_layer):
        self._staged[layer_name] = kv_layer.to(torch.float16)  # positive: f4 CL001 whole layer cache, through a hook list walked by save_kv_layer

    def _checksum(self, layer_name, kv_layer):
        return kv_layer.view(torch.int32).sum()  # negative: reinterpret

    def save_kv_layer(self, layer_name, kv_layer, attn_metadata, **kwargs):
        slots = attn_metadata.slot_mapping.to(torch.int64)  # negative: slot mapping
        for hook in self._layer_hooks:
            hook(layer_name, kv_layer)
        return slots
