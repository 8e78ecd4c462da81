"""Bound methods passed as callbacks to a scheduler object that walks the registered caches."""
import torch


class LayerScheduler:
    def __init__(self, kv_caches):
        self.kv_caches = kv_caches

    def each(self, callback):
        for name, cache in self.kv_caches.items():
            callback(name, cache)

    def each_slots(self, slot_mapping, callback):
        for name in self.kv_caches:
            callback(name, slot_mapping)


class CallbackConnector:
    def register_kv_caches(self, kv_caches):
        self.sched = LayerScheduler(kv_caches)
        self.out = {}

    def start_load_kv(self, forward_context, **kwargs):
        self.sched.each(self._on_layer)

    def save_kv_layer(self, layer_name, kv_layer, attn_metadata, **kwargs):
        self.sched.each_slots(attn_metadata.slot_mapping, self._on_slots)

    def _on_layer(self, name, cache):
        self.out[name] = cache.to(torch.float16)  # positive: f4 CL001 callback handed every registered cache

    def _on_slots(self, name, slots):
        self.out[name] = slots.to(torch.int64)  # negative: callback handed the slot mapping
