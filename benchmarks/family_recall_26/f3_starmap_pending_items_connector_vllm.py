from itertools import starmap

import torch

from vllm.distributed.kv_transfer.kv_connector.v1.base import KVConnectorBase_V1


class LayerDumpConnector(KVConnectorBase_V1):
    def __init__(self, vllm_config, role):
        super().__init__(vllm_config, role)
        self.dump_dtype = torch.float16
        self._pending = {}
        self._sink = []

    def save_kv_layer(self, layer_name, kv_layer, attn_metadata, **kwargs):
        self._pending[layer_name] = (kv_layer, attn_metadata.slot_mapping)

    def _encode(self, name, item):
        kv_layer, _ = item
        return name, kv_layer.to(self.dump_dtype)  # positive: f3 CL001 whole layer from (name, (kv, slots)) items via itertools.starmap

    def _encode_slots(self, name, item):
        kv_layer, slots = item
        return name, kv_layer.flatten(1, 2)[:, slots].to(self.dump_dtype)  # negative: slots selected before the cast

    def wait_for_save(self):
        self._sink.extend(starmap(self._encode, self._pending.items()))
        self._pending.clear()

    def save_new_tokens_only(self):
        return list(starmap(self._encode_slots, self._pending.items()))
