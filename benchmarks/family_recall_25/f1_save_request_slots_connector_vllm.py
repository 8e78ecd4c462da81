from dataclasses import dataclass

import torch


@dataclass
class _LayerSaveRequest:
    layer_name: str
    kv_layer: torch.Tensor
    slot_mapping: torch.Tensor

    def full(self):
        return self.kv_layer

    def slots(self):
        return self.kv_layer.flatten(1, 2)[:, self.slot_mapping]


class DiskKVConnector:
    def __init__(self, vllm_config, role):
        self.wire_dtype = torch.float16
        self.full_dump = vllm_config.kv_transfer_config.get_from_extra_config("full_dump", False)

    def save_kv_layer(self, layer_name, kv_layer, attn_metadata, **kwargs):
        req = _LayerSaveRequest(layer_name, kv_layer, attn_metadata.slot_mapping)
        if self.full_dump:
            payload = req.full().to(self.wire_dtype).cpu()  # positive: f1 CL001 whole layer cache from the request record
        else:
            payload = req.slots().to(self.wire_dtype).cpu()  # negative: slots selected before the cast
        return payload
