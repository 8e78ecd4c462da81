"""f1: a connector hands layer caches through a queue.SimpleQueue from save_kv_layer to wait_for_save."""
import queue

import torch


class QueueConnector:
    def __init__(self, vllm_config, role):
        self._pending = queue.SimpleQueue()
        self._meta = queue.SimpleQueue()
        self.kv_caches = {}

    def register_kv_caches(self, kv_caches):
        self.kv_caches = kv_caches
        first = next(iter(kv_caches.values()))
        self._probe = first.to(torch.float32)  # negative: registration, one time

    def save_kv_layer(self, layer_name, kv_layer, attn_metadata, **kwargs):
        self._pending.put((layer_name, kv_layer))
        self._meta.put(attn_metadata.slot_mapping)

    def wait_for_save(self):
        while not self._pending.empty():
            name, layer = self._pending.get()
            slots = self._meta.get()
            host = layer.to(torch.bfloat16)  # positive: f1 CL001 the queued kv_layer is the whole layer cache
            rows = layer.flatten(0, 1)[slots].to(torch.bfloat16)  # negative: the step's slots
            self._store(name, host, rows, slots.to(torch.int64))  # negative: slot mapping

    def start_load_kv(self, forward_context, **kwargs):
        box = queue.SimpleQueue()
        for name, cache in self.kv_caches.items():
            box.put(cache)
        blob = box.get().half()  # positive: f1 CL001 a registered layer cache out of the queue
        return blob

    def _store(self, name, host, rows, slots):
        pass
