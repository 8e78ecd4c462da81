import torch


class DraftTargetSharedPool:
    """Draft pool that reads the target's FP8 layers for the shared EAGLE3 layer."""

    def __init__(self, target_pool, draft_layer_map, dtype):
        self.target_pool = target_pool
        self.draft_layer_map = draft_layer_map
        self.dtype = dtype

    def get_key_buffer(self, layer_id):
        buf = self.target_pool.get_key_buffer(self.draft_layer_map[layer_id])
        return buf.to(self.dtype)  # positive: f6 CL004 pool accessor converts the whole target layer

    def get_value_buffer(self, layer_id):
        return self.target_pool.get_value_buffer(self.draft_layer_map[layer_id])

    def get_key_rows(self, layer_id, loc):
        return self.target_pool.get_key_buffer(self.draft_layer_map[layer_id])[loc].to(self.dtype)  # negative: rows gathered first

    def set_kv_buffer(self, layer, loc, cache_k, cache_v):
        self.target_pool.set_kv_buffer(layer, loc, cache_k.to(self.target_pool.dtype), cache_v)  # negative: writer of new tokens
