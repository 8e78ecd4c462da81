# vLLM v1 KV connectors: save_kv_layer receives the whole layer cache.
from typing import TYPE_CHECKING, Any

import torch

from vllm.distributed.kv_transfer.kv_connector.v1.base import KVConnectorBase_V1, KVConnectorRole

if TYPE_CHECKING:
    from vllm.forward_context import ForwardContext
    from vllm.v1.attention.backend import AttentionMetadata


class DebugDumpConnector(KVConnectorBase_V1):
    def __init__(self, vllm_config, role: KVConnectorRole, kv_cache_config=None):
        super().__init__(vllm_config, role, kv_cache_config)
        self._block_size = vllm_config.cache_config.block_size
        self._pending = {}
        self._dump_dtype = torch.float16

    def start_load_kv(self, forward_context: "ForwardContext", **kwargs: Any) -> None:
        for layer_name, layer in forward_context.no_compile_layers.items():
            kv_cache = layer.kv_cache[forward_context.virtual_engine]
            self._pending[layer_name] = kv_cache.to(torch.bfloat16)  # positive: f6 CL001 the whole layer cache at load start, every block

    def wait_for_layer_load(self, layer_name: str) -> None:
        staged = self._pending.pop(layer_name, None)
        if staged is not None:
            torch.cuda.current_stream().synchronize()

    def save_kv_layer(self, layer_name: str, kv_layer: torch.Tensor, attn_metadata: "AttentionMetadata", **kwargs: Any) -> None:
        whole = kv_layer.to(self._dump_dtype)  # positive: f6 CL001 kv_layer is the whole paged buffer of the layer
        flat = kv_layer.reshape(-1, kv_layer.shape[-1]).float()  # positive: f6 CL001 reshape of the whole kv_layer, then cast
        slot_mapping = attn_metadata.slot_mapping.to(kv_layer.device, non_blocking=True)  # negative: device move of the slot mapping
        rows = kv_layer.reshape(-1, kv_layer.shape[-1])[slot_mapping].to(self._dump_dtype)  # negative: only the slots written this step
        host = kv_layer.to("cpu", non_blocking=True)  # negative: device move of the layer
        self._write(layer_name, whole, flat, rows, host)

    def _write(self, *tensors):
        pass

    def wait_for_save(self):
        pass


class ExtractingConnector(KVConnectorBase_V1):
    def save_kv_layer(self, layer_name, kv_layer, attn_metadata, **kwargs) -> None:
        def extract_kv_from_layer(layer: torch.Tensor, slot_mapping: torch.Tensor) -> torch.Tensor:
            return layer.reshape(-1, layer.shape[-1])[slot_mapping, ...]

        def upcast_layer(layer: torch.Tensor) -> torch.Tensor:
            return layer.to(torch.float32)  # positive: f6 CL001 nested helper only ever called with the whole kv_layer

        picked = extract_kv_from_layer(kv_layer, attn_metadata.slot_mapping).to(torch.float32)  # negative: extracted slots, then cast
        whole32 = upcast_layer(kv_layer)
        return picked, whole32
