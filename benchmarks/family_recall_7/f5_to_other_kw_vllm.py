"""f5: .to(other=q), .to(q, non_blocking=True), torch.Tensor.to(kv_cache, dtype), against same-dtype forms."""
import torch


class OtherKwImpl:
    def __init__(self, num_heads, head_size, kv_cache_dtype):
        self.num_heads = num_heads
        self.head_size = head_size
        self.kv_cache_dtype = kv_cache_dtype

    def forward(self, layer, query, key, value, kv_cache, attn_metadata, output=None):
        a = kv_cache.to(other=query)  # positive: f5 CL001 dtype taken from query via the other= keyword
        b = kv_cache[1].to(query, non_blocking=True)  # positive: f5 CL001 V of every block, dtype of query
        c = torch.Tensor.to(kv_cache, torch.float16)  # positive: f5 CL001 unbound Tensor.to
        same = kv_cache.to(other=kv_cache)  # negative: its own dtype
        moved = kv_cache.to(device=query.device)  # negative: device only
        slot = attn_metadata.slot_mapping.to(other=attn_metadata.block_table)  # negative: index tensors
        return a, b, c, same, moved, slot
