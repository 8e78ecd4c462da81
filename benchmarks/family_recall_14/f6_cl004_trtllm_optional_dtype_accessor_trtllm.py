"""A KV cache manager subclass whose get_layer_view(layer_idx, dtype=None) converts (CL004)."""
import torch

from tensorrt_llm._torch.pyexecutor.resource_manager import KVCacheManager


class DequantKVCacheManager(KVCacheManager):
    def get_layer_view(self, layer_idx, dtype=None):
        buf = self.get_buffers(layer_idx)
        if dtype is None or dtype == buf.dtype:
            return buf
        return buf.to(dtype)  # positive: f6 CL004 the accessor converts the whole layer buffer when a dtype is asked

    def get_layer_scale(self, layer_idx):
        return self.kv_scales[layer_idx].to(torch.float32)  # negative: a per-layer scale

    def get_block_view(self, layer_idx, block_ids, dtype):
        return self.get_buffers(layer_idx)[block_ids].to(dtype)  # negative: gathered blocks


class FallbackMLAAttention:
    def __init__(self, layer_idx):
        self.layer_idx = layer_idx

    def forward(self, q, compressed_kv, k_pe, metadata, **kwargs):
        mgr = metadata.kv_cache_manager
        kv = mgr.get_layer_view(self.layer_idx, dtype=q.dtype)  # note: per-step caller of the CL004 accessor
        scale = mgr.get_layer_scale(self.layer_idx)
        return self._mla(q, kv, scale, metadata)
