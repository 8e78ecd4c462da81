import torch

try:
    from ._triton import upcast_cache
except ImportError:
    from ._torch import upcast_cache


class ConditionalImportImpl:
    def forward(self, layer, query, key, value, kv_cache, attn_metadata, output=None):
        dense = upcast_cache(kv_cache, query.dtype)
        slots = attn_metadata.slot_mapping.to(torch.int32)  # negative: slot mapping
        scratch = torch.empty_like(query, dtype=torch.float32)  # negative: an allocation
        return dense, slots, scratch
