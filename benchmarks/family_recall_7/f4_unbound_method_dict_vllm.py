"""f4: converters chosen from a dict of unbound Tensor methods and called on kv_cache."""
import torch

_CASTS = {"fp32": torch.Tensor.float, "bf16": torch.Tensor.bfloat16, "fp16": torch.Tensor.half}


class UnboundImpl:
    def __init__(self, num_heads, head_size, mode="bf16"):
        self.num_heads = num_heads
        self.head_size = head_size
        self.cast = _CASTS[mode]

    def forward(self, layer, query, key, value, kv_cache, attn_metadata, output=None):
        dense = self.cast(kv_cache)  # positive: f4 CL001 unbound Tensor method from a dict
        k_all = _CASTS["fp32"](kv_cache[0])  # positive: f4 CL001 K of every block
        q = self.cast(query)  # negative: batch query
        rows = self.cast(kv_cache[:, attn_metadata.block_table[0]])  # negative: one request's blocks
        return dense, k_all, q, rows
