import torch

from vllm.distributed.kv_transfer.kv_connector.v1.base import KVConnectorBase_V1

from .encoders import new_slots, whole_layer


class LayerwiseWireConnector(KVConnectorBase_V1):
    def __init__(self, vllm_config, role, full_layers=True):
        super().__init__(vllm_config, role)
        self.wire_dtype = torch.bfloat16
        self.full_layers = full_layers
        self.outbox = []

    def _submit(self, layer_name, kv_layer, encode, *extra):
        self.outbox.append((layer_name, encode(kv_layer, self.wire_dtype, *extra)))

    def save_kv_layer(self, layer_name, kv_layer, attn_metadata, **kwargs):
        if self.full_layers:
            self._submit(layer_name, kv_layer, whole_layer)
        else:
            self._submit(layer_name, kv_layer, new_slots, attn_metadata.slot_mapping)

    def wait_for_save(self):
        torch.cuda.current_stream().synchronize()
        self.outbox.clear()
