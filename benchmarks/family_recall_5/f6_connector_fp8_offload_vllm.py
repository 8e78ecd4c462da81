"""A vLLM v1 KV connector that offloads layers; one path converts the whole layer."""

import torch
from vllm.distributed.kv_transfer.kv_connector.v1.base import KVConnectorBase_V1


class Bf16OffloadConnector(KVConnectorBase_V1):
    def __init__(self, vllm_config, role, kv_cache_config=None):
        super().__init__(vllm_config, role, kv_cache_config)
        self.store_dtype = torch.bfloat16
        self.host = {}

    def start_load_kv(self, forward_context, **kwargs):
        self.staged = {name: t.to("cuda", non_blocking=True) for name, t in self.host.items()}  # negative: .to(device) of host copies

    def wait_for_layer_load(self, layer_name):
        return None

    def save_kv_layer(self, layer_name, kv_layer, attn_metadata, **kwargs):
        if kv_layer.dtype == self.store_dtype:
            self.host[layer_name] = kv_layer.to("cpu", non_blocking=True)  # negative: device move, same dtype
            return
        wide = kv_layer.to(self.store_dtype)  # positive: f6 CL001 save_kv_layer converts the whole paged kv_layer
        self.host[layer_name] = wide.cpu()
        slots = attn_metadata.slot_mapping.to(torch.int64)  # negative: slot mapping
        kwargs.setdefault("slots", slots)

    def wait_for_save(self):
        torch.cuda.current_stream().synchronize()


class SlotOffloadConnector(Bf16OffloadConnector):
    def save_kv_layer(self, layer_name, kv_layer, attn_metadata, **kwargs):
        sm = attn_metadata.slot_mapping
        rows = kv_layer.flatten(1, 2)[:, sm].to(self.store_dtype)  # negative: only this step's slots, gathered then cast
        self.host[layer_name] = rows.cpu()

    def _as_bytes(self, kv_layer):
        return kv_layer.view(torch.uint8)  # negative: reinterpret
