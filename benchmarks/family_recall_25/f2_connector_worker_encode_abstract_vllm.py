from abc import ABC, abstractmethod

import torch


class _LayerEncoder(ABC):
    @abstractmethod
    def encode(self, kv_layer, slot_mapping): ...


class _FullLayerEncoder(_LayerEncoder):
    def encode(self, kv_layer, slot_mapping):
        return kv_layer.to(torch.bfloat16).cpu()  # positive: f2 CL001 concrete encoder converts the whole layer, chosen for full-prefix dumps


class _SlotEncoder(_LayerEncoder):
    def encode(self, kv_layer, slot_mapping):
        return kv_layer.flatten(1, 2)[:, slot_mapping].to(torch.bfloat16).cpu()  # negative: slots selected before the cast


class DumpConnectorWorker:
    def __init__(self, full_prefix: bool):
        self.encoder = _FullLayerEncoder() if full_prefix else _SlotEncoder()

    def save_kv_layer(self, layer_name, kv_layer, attn_metadata, **kwargs):
        blob = self.encoder.encode(kv_layer, attn_metadata.slot_mapping)
        return blob.view(torch.uint8)  # negative: .view(dtype) reinterpret
