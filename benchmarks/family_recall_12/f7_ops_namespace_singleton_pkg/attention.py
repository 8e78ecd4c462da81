import torch

from .kernels import ops


class NamespaceAttention:
    def __init__(self, layer_idx, dtype):
        self.layer_idx = layer_idx
        self.dtype = dtype

    def forward(self, q, k, v, attn_metadata, **kwargs):
        buf = attn_metadata.kv_cache_manager.get_buffers(self.layer_idx)
        dense = ops.upcast(buf, self.dtype)
        offs = ops.offsets(attn_metadata.kv_cache_block_offsets)
        return q.to(self.dtype), dense, offs  # negative: batch query

    def prefill(self, q, k, attn_metadata):
        return k.to(self.dtype)  # negative: the chunk's keys
