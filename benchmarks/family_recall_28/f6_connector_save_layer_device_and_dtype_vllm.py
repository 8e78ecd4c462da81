"""vLLM host-offload connector: save_kv_layer moves the layer to the host; with a wire dtype it also converts it."""
import torch


class HostOffloadConnector:
    def __init__(self, vllm_config, role):
        extra = vllm_config.kv_transfer_config.kv_connector_extra_config
        self.wire_dtype = getattr(torch, extra.get("wire_dtype", "bfloat16"))
        self.full_layer = extra.get("full_layer", True)
        self.pending = []

    def register_kv_caches(self, kv_caches):
        self.kv_caches = kv_caches
        self.host = {name: torch.empty_like(t, device="cpu", dtype=self.wire_dtype) for name, t in kv_caches.items()}  # negative: allocation at registration (setup)

    def save_kv_layer(self, layer_name, kv_layer, attn_metadata, **kwargs):
        if self.full_layer:
            host = kv_layer.to("cpu", self.wire_dtype, non_blocking=True)  # positive: f6 CL001 device move and dtype change of the whole layer
        else:
            host = kv_layer[:, attn_metadata.slot_mapping // kv_layer.size(2)].to("cpu", self.wire_dtype)  # negative: blocks gathered first
        raw = kv_layer.to("cpu", non_blocking=True)  # negative: device move only, same dtype
        self.pending.append((layer_name, host, raw))

    def wait_for_save(self):
        for name, host, raw in self.pending:
            self.host[name].copy_(host)
        self.pending.clear()
