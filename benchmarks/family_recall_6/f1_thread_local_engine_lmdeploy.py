"""The cache engine reaches the attention layers through a threading.local holder."""
import threading

import torch

_tls = threading.local()


class CacheEngine:
    def __init__(self, num_layers, num_blocks, block_size, heads, head_dim):
        shape = (num_blocks, block_size, heads, head_dim)
        self.local_gpu_cache = [
            (torch.empty(shape, dtype=torch.int8, device="cuda"),
             torch.empty(shape, dtype=torch.int8, device="cuda"))
            for _ in range(num_layers)
        ]
        self.k_scales_zeros = [torch.ones(num_blocks, block_size, heads, 2) for _ in range(num_layers)]


def install_engine(engine):
    _tls.engine = engine


def current_caches():
    return _tls.engine.local_gpu_cache


class NaiveAttention(torch.nn.Module):
    def __init__(self, layer_idx):
        super().__init__()
        self.layer_idx = layer_idx

    def forward(self, query, key, value, attn_metadata):
        k_cache, v_cache = current_caches()[self.layer_idx]
        kf = k_cache.to(query.dtype)  # positive: f1 CL001 whole int8 key cache of the layer, via the thread-local engine
        vf = _tls.engine.local_gpu_cache[self.layer_idx][1].half()  # positive: f1 CL001 whole value cache of the layer
        sz = _tls.engine.k_scales_zeros[self.layer_idx].to(query.dtype)  # negative: scales/zeros
        offs = attn_metadata.block_offsets.to(torch.int64)  # negative: block table
        used = k_cache[attn_metadata.block_offsets[0]].to(query.dtype)  # negative: gather-then-cast of one sequence's blocks
        return kf, vf, sz, offs, used
