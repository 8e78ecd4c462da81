import torch


class AscendAttentionBackendImpl:
    """torch_npu paged attention reads fp16/bf16 only."""

    def __init__(self, dtype=torch.float16):
        self.dtype = dtype
        self.groups: dict[int, list[tuple[torch.Tensor, torch.Tensor]]] = {}

    def bind(self, group_id, key_cache, value_cache):
        self.groups.setdefault(group_id, []).append((key_cache, value_cache))

    def forward(self, layer, query, key, value, kv_cache, attn_metadata, output=None):
        key_cache, value_cache = self.groups[attn_metadata.group_id][layer.layer_idx]
        if key_cache.dtype is not self.dtype:
            key_cache = key_cache.to(self.dtype)  # positive: f3 CL001 whole key cache from a dict of per-group lists of pairs
            value_cache = value_cache.to(self.dtype)  # positive: f3 CL001 whole value cache from the same pair
        slots = attn_metadata.slot_mapping.to(torch.int32)  # negative: slot mapping
        k_new = key.to(self.dtype)  # negative: new tokens
        return key_cache, value_cache, slots, k_new
