# vLLM v1 connector: a base worker-side connector and a subclass for a bf16-only remote store.
import torch


class StoreConnectorBase:
    def _to_wire(self, kv_layer, slot_mapping):
        return kv_layer.flatten(1, 2)[:, slot_mapping]

    def save_kv_layer(self, layer_name, kv_layer, attn_metadata, **kwargs):
        payload = self._to_wire(kv_layer, attn_metadata.slot_mapping)
        self._store.put(layer_name, payload)


class Bf16StoreConnector(StoreConnectorBase):
    def _to_wire(self, kv_layer, slot_mapping):
        rows = super()._to_wire(kv_layer, slot_mapping)
        return rows.to(torch.bfloat16)  # negative: super() already selected the slots

    def start_load_kv(self, forward_context, **kwargs):
        for name, layer in forward_context.no_compile_layers.items():
            remote = self._store.get(name)
            layer.kv_cache[0].copy_(remote.to(layer.kv_cache[0].dtype))  # negative: loaded blob
            self._shadow[name] = layer.kv_cache[0].to(torch.bfloat16)  # positive: f2 CL001 whole layer cache mirrored each load
