"""Connector base: layout helpers shared by concrete connectors."""
import torch

from vllm.distributed.kv_transfer.kv_connector.v1.base import KVConnectorBase_V1


class LayoutAwareConnector(KVConnectorBase_V1):
    def _flatten(self, kv_layer: torch.Tensor) -> torch.Tensor:
        return kv_layer.flatten(1, 2)

    def _select_slots(self, kv_layer: torch.Tensor, slots: torch.Tensor) -> torch.Tensor:
        return kv_layer.flatten(1, 2)[:, slots]

    def _wire_format(self, kv_layer: torch.Tensor) -> torch.Tensor:
        return kv_layer.to(torch.float16)  # positive: f7 CL001 base helper converts the whole layer tensor
