"""vLLM-style shared-storage connector: per-request slot extraction, plus an optional full-layer fp16 dump."""
import torch


def extract_kv_from_layer(layer, slot_mapping):
    num_slots = layer.shape[1] * layer.shape[2]
    return layer.reshape(2, num_slots, -1)[:, slot_mapping].to(torch.float16)  # negative: slots of one request


class SharedStorageConnector:
    def __init__(self, storage, dump_full_layers=False):
        self.storage = storage
        self.dump_full_layers = dump_full_layers
        self._kv_caches = {}
        self._requests = []

    def register_kv_caches(self, kv_caches: dict):
        self._kv_caches = dict(kv_caches)

    def save_kv_layer(self, layer_name, kv_layer, attn_metadata, **kwargs):
        for req in self._requests:
            self.storage.put((req.req_id, layer_name), extract_kv_from_layer(kv_layer, req.slot_mapping).cpu())

    def wait_for_save(self):
        if not self.dump_full_layers:
            return
        for name, kv in self._kv_caches.items():
            self.storage.put(("full", name), kv.to(torch.float16).cpu())  # positive: f6 CL001 whole registered layer converted for the dump
