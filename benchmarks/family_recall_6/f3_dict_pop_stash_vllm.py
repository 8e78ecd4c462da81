"""A per-step copy of the caches dict consumed with pop and popitem."""
import torch


class LayerwiseUploader:
    def __init__(self, dtype=torch.bfloat16):
        self.dtype = dtype
        self.kv_caches = {}
        self.pending_slots = {}

    def register_kv_caches(self, kv_caches):
        self.kv_caches = kv_caches

    def wait_for_save(self):
        stash = dict(self.kv_caches)
        out = {}
        while stash:
            name, t = stash.popitem()
            out[name] = t.to(self.dtype)  # positive: f3 CL001 whole layer cache from popitem
        return out

    def save_kv_layer(self, layer_name, kv_layer, attn_metadata, **kwargs):
        stash = dict(self.kv_caches)
        lane = stash.pop(layer_name, kv_layer)
        dense = lane.float()  # positive: f3 CL001 whole cache popped by layer name (or kv_layer)
        slots = self.pending_slots.pop(layer_name, attn_metadata.slot_mapping)
        s64 = slots.to(torch.int64)  # negative: slot mapping
        rows = kv_layer[:, attn_metadata.block_table[0]].to(self.dtype)  # negative: gather-then-cast
        return dense, s64
