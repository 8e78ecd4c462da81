"""The manager buffer comes in here; records.LayerKV converts it."""
import torch

from .records import LayerKV


class RecordFallbackAttention:
    def __init__(self, layer_idx, keys_only=False):
        self.layer_idx = layer_idx
        self.keys_only = keys_only

    def forward(self, q, k, v, metadata, **kwargs):
        rec = LayerKV(metadata.kv_cache_manager.get_buffers(self.layer_idx), self.kv_scale)
        if metadata.is_cuda_graph:
            ids = metadata.kv_cache_block_offsets[0, : metadata.num_seqs].flatten()
            return self._attend(q, rec.blocks(ids, q.dtype), rec.scale_f32())
        kv = rec.dense_keys(q.dtype) if self.keys_only else rec.dense(q.dtype)
        return self._attend(q, kv, rec.scale_f32())
