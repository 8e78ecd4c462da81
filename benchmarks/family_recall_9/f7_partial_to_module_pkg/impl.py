from . import access
from .access import to_half


class PartialModuleImpl:
    def forward(self, layer, query, key, value, kv_cache, attn_metadata, output=None):
        k_plane = to_half(kv_cache[0])  # positive: f7 CL001 partial of Tensor.to from access.py on the K plane
        whole = access.to_bf16(kv_cache)  # positive: f7 CL001 partial from access.py on the whole cache
        q16 = to_half(query)  # negative: batch query through the same partial
        slots = access.to_long(attn_metadata.slot_mapping)  # negative: slot mapping
        return k_plane, whole, q16, slots
