"""DLPack round-trips and as_subclass keep the same storage; conversions after them are whole."""
import torch
import torch.utils.dlpack as dlp


class DlpackImpl:
    def __init__(self, num_heads, head_size):
        self.num_heads = num_heads
        self.head_size = head_size

    def forward(self, layer, query, key, value, kv_cache, attn_metadata, output=None):
        a = torch.from_dlpack(kv_cache).to(query.dtype)  # positive: f5 CL001 from_dlpack of the layer cache
        b = dlp.from_dlpack(dlp.to_dlpack(kv_cache)).float()  # positive: f5 CL001 to/from dlpack round-trip
        c = kv_cache.as_subclass(torch.Tensor).half()  # positive: f5 CL001 as_subclass is the same tensor
        s = torch.from_dlpack(attn_metadata.slot_mapping).to(torch.int32)  # negative: slot mapping
        d = torch.from_dlpack(kv_cache)  # negative: no conversion
        return a, b, c, s, d
