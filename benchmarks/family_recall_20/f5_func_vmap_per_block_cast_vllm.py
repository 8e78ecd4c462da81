import torch
from torch.func import vmap


class CPUPagedReferenceImpl:
    """Reference path used in tests and on CPU: vectorises a per-block conversion over the whole cache."""

    def __init__(self, kv_cache_dtype):
        self.kv_cache_dtype = kv_cache_dtype

    def forward(self, layer, query, key, value, kv_cache, attn_metadata, output=None):
        to_q = vmap(lambda blk: blk.to(query.dtype))
        dense = to_q(kv_cache.flatten(0, 1))  # positive: f5 CL001 vmap maps the cast over every block of the whole cache
        k_plane = vmap(torch.Tensor.float)(kv_cache[0])  # positive: f5 CL001 unbound .float mapped over the whole key plane
        used = to_q(kv_cache[:, attn_metadata.block_table[0]].flatten(0, 1))  # negative: blocks selected before the mapped cast
        moved = vmap(lambda blk: blk.to("cpu"))(kv_cache)  # negative: .to(device)
        return dense, k_plane, used, moved
