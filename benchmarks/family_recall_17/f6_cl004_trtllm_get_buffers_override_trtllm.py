"""TensorRT-LLM: a KVCacheManager subclass for GPUs without FP8 FMHA overrides get_buffers
to return the layer in the compute dtype."""
import torch
from tensorrt_llm._torch.pyexecutor.resource_manager import KVCacheManager


class ComputeDtypeKVCacheManager(KVCacheManager):
    def __init__(self, *args, compute_dtype=torch.bfloat16, **kwargs):
        super().__init__(*args, **kwargs)
        self.compute_dtype = compute_dtype

    def get_buffers(self, layer_idx, kv_layout="NHD"):
        buf = super().get_buffers(layer_idx, kv_layout)
        return buf.to(self.compute_dtype)  # positive: f6 CL004 the manager accessor widens the whole layer

    def get_block_view(self, layer_idx, block_ids):
        return super().get_buffers(layer_idx)[block_ids].to(self.compute_dtype)  # negative: gathered blocks


class VanillaAttention:
    def __init__(self, layer_idx):
        self.layer_idx = layer_idx

    def forward(self, q, k, v, metadata):
        buf = metadata.kv_cache_manager.get_buffers(self.layer_idx)  # note: per-step caller of the widening accessor
        return q, buf
