"""vLLM v1 connector: conversions in start_load_kv / wait_for_save / wait_for_layer_load, not just save_kv_layer."""
import torch


class HostBounceConnector:
    def __init__(self, vllm_config, role):
        self.role = role
        self.dtype = torch.bfloat16
        self.kv_caches = {}
        self.host = {}

    def register_kv_caches(self, kv_caches):
        self.kv_caches = kv_caches
        self.host = {n: torch.empty_like(t, dtype=self.dtype, device="cpu") for n, t in kv_caches.items()}
        self.probe = next(iter(kv_caches.values())).to(self.dtype)  # negative: registration-time, once

    def start_load_kv(self, forward_context, **kwargs):
        for name, layer in forward_context.no_compile_layers.items():
            lane = layer.kv_cache[forward_context.virtual_engine]
            self.host[name].copy_(lane.to(self.dtype))  # positive: f6 CL001 the layer's whole cache converted while starting the load

    def wait_for_layer_load(self, layer_name):
        t = self.kv_caches[layer_name]
        return t[0].float()  # positive: f6 CL001 every block's K half when a layer load finishes

    def wait_for_save(self):
        for name, t in self.kv_caches.items():
            self.host[name].copy_(t)  # negative: same-dtype copy into host memory

    def save_kv_layer(self, layer_name, kv_layer, attn_metadata, **kwargs):
        blocks = attn_metadata.block_table[0]
        part = kv_layer[:, blocks].to(self.dtype)  # negative: gather-then-cast of the request's blocks
        s = attn_metadata.slot_mapping.to(torch.int64)  # negative: slot mapping
        return part, s
