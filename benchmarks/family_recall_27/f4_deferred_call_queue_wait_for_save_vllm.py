import torch


class DeferredStoreConnector:
    """Collects per-layer save work in save_kv_layer and runs it in wait_for_save."""

    def __init__(self, vllm_config, role, store):
        self.wire_dtype = torch.bfloat16
        self._pending = []
        self._store = store

    def save_kv_layer(self, layer_name, kv_layer, attn_metadata, **kwargs):
        meta = self._get_connector_metadata()
        if meta.full_layer_dump:
            self._pending.append((self._encode_layer, (layer_name, kv_layer)))
        else:
            self._pending.append((self._encode_slots, (layer_name, kv_layer, attn_metadata.slot_mapping)))

    def wait_for_save(self):
        for fn, args in self._pending:
            self._store.put(*fn(*args))
        self._pending.clear()

    def _encode_layer(self, name, kv_layer):
        return name, kv_layer.to(self.wire_dtype)  # positive: f4 CL001 whole layer, call deferred through a (fn, args) queue

    def _encode_slots(self, name, kv_layer, slots):
        flat = kv_layer.flatten(1, 2)  # [2, num_blocks * block_size, heads, dim]
        return name, flat[:, slots].to(self.wire_dtype)  # negative: the step's slots
