"""vLLM KV connector: the registered caches are split into (key, value) planes per layer at
registration; wait_for_save walks dict.items() unpacking (name, (k, v)) and converts for the
host store."""
import torch


class HostStoreConnectorWorker:
    def __init__(self, store_dtype=torch.float16):
        self.store_dtype = store_dtype
        self.planes = {}
        self.pending = []

    def register_kv_caches(self, kv_caches):
        for name, cache in kv_caches.items():
            self.planes[name] = (cache[0], cache[1])
            self.planes[name][0].to(self.store_dtype)  # negative: one-time, at registration

    def save_kv_layer(self, layer_name, kv_layer, attn_metadata, **kwargs):
        self.pending.append((layer_name, attn_metadata.slot_mapping))

    def wait_for_save(self):
        for name, (k_plane, v_plane) in self.planes.items():
            self._put(name, "k", k_plane.to(self.store_dtype))  # positive: f3 CL001 whole key plane of a registered cache
            self._put(name, "v", v_plane.to(self.store_dtype))  # positive: f3 CL001 whole value plane of a registered cache
        for name, slots in self.pending:
            self._put(name, "new", self.planes[name][0].flatten(0, 1)[slots].to(self.store_dtype))  # negative: slots
        self.pending.clear()

    def _put(self, name, part, tensor):
        return None
