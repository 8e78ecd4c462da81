import torch

from .readers import with_dense_reader


@with_dense_reader
class NoFp8GenAttention:
    def __init__(self, kv_cache_manager, compute_dtype=torch.bfloat16):
        self.kv_cache_manager = kv_cache_manager
        self.compute_dtype = compute_dtype

    def forward(self, q, k, v, metadata, layer_idx):
        buf = self.kv_cache_manager.get_buffers(layer_idx)
        dense = self._dense_layer(buf)
        values = self._dense_value_plane(buf)
        ctx = self._block_rows(buf, metadata.block_ids)
        return dense, values, ctx, buf.to(q.device)  # negative: .to(device)
