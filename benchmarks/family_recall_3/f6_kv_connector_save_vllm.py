"""vLLM KV connector that receives the layer's whole paged cache."""
import torch

from vllm.distributed.kv_transfer.kv_connector.v1.base import KVConnectorBase_V1, KVConnectorRole


class UpcastingConnector(KVConnectorBase_V1):
    def __init__(self, vllm_config, role: KVConnectorRole):
        super().__init__(vllm_config, role)
        self._store = {}

    def start_load_kv(self, forward_context, **kwargs):
        return None

    def wait_for_layer_load(self, layer_name: str) -> None:
        return None

    def save_kv_layer(self, layer_name: str, kv_layer: torch.Tensor, attn_metadata, **kwargs) -> None:
        data = kv_layer.to(torch.bfloat16)  # positive: f6 CL001 connector receives the layer's whole kv cache
        slots = attn_metadata.slot_mapping
        picked = kv_layer.flatten(1, 2)[:, slots].to(torch.bfloat16)  # negative: gathered slots only
        self._store[layer_name] = (data, picked)

    def wait_for_save(self):
        return None


class CpuMirrorConnector(UpcastingConnector):
    def save_kv_layer(self, layer_name, kv_layer, attn_metadata, **kwargs):
        self._store[layer_name] = kv_layer.to("cpu", torch.float16, non_blocking=True)  # positive: f6 CL001 device+dtype of the whole layer cache
        shadow = kv_layer.to("cpu", non_blocking=True)  # negative: device move only
        return shadow
