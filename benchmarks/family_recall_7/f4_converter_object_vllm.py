"""f4: callable converter objects: one only ever handed kv_cache, one handed the step's slots."""
import torch


class Upcaster:
    def __init__(self, dtype):
        self.dtype = dtype

    def __call__(self, cache):
        return cache.to(self.dtype)  # positive: f4 CL001 only ever called with the whole kv_cache


class RowUpcaster:
    def __init__(self, dtype):
        self.dtype = dtype

    def __call__(self, cache, slots):
        return cache.flatten(1, 2)[:, slots].to(self.dtype)  # negative: the step's slots


class ConverterImpl:
    def __init__(self, num_heads, head_size):
        self.upcast = Upcaster(torch.bfloat16)
        self.rows = RowUpcaster(torch.bfloat16)
        self.num_heads = num_heads
        self.head_size = head_size

    def forward(self, layer, query, key, value, kv_cache, attn_metadata, output=None):
        dense = self.upcast(kv_cache)
        picked = self.rows(kv_cache, attn_metadata.slot_mapping)
        k_all = kv_cache.unbind(0)[0].to(query.dtype)  # positive: f4 CL001 K of every block next to the converters
        lens = attn_metadata.seq_lens.to(torch.int32)  # negative: lengths
        return dense, picked, k_all, lens
