"""CL004: a vLLM-side store of registered caches whose `get_dense` accessor converts the whole layer."""
import torch


class LayerCacheStore:
    def __init__(self, kv_caches, compute_dtype=torch.float16):
        self.kv_caches = dict(kv_caches)
        self.compute_dtype = compute_dtype
        self.block_counts = {n: torch.zeros(1, dtype=torch.int32) for n in kv_caches}

    def get(self, layer_name):
        return self.kv_caches[layer_name]

    def get_dense(self, layer_name):
        return self.kv_caches[layer_name].to(self.compute_dtype)  # positive: f6 CL004 store accessor returns the converted whole cache

    def count(self, layer_name):
        return self.block_counts[layer_name].to(torch.int64)  # negative: block counter


class StoreConnector:
    def register_kv_caches(self, kv_caches):
        self.store = LayerCacheStore(kv_caches)

    def wait_for_layer_load(self, layer_name):
        raw = self.store.get(layer_name)
        self._send(raw.to(torch.bfloat16))  # positive: f6 CL001 raw registered cache converted in the hook
        self._send(self.store.get_dense(layer_name))  # note: per-step caller of the CL004 accessor, not labelled again

    def save_kv_layer(self, layer_name, kv_layer, attn_metadata, **kwargs):
        self._send(kv_layer[:, attn_metadata.slot_mapping].to(torch.float16))  # negative: the step's slots

    def _send(self, t):
        return t
