# TensorRT-LLM: a KVCacheManager subclass used when the attention backend has no FP8
# generation kernel; get_layer_kv hands the backend dense planes.
import torch

from tensorrt_llm._torch.pyexecutor.resource_manager import KVCacheManager


class FP8FallbackKVCacheManager(KVCacheManager):
    def __init__(self, *args, compute_dtype=torch.bfloat16, **kwargs):
        super().__init__(*args, **kwargs)
        self.compute_dtype = compute_dtype

    def get_layer_kv(self, layer_idx: int):
        buf = self.get_buffers(layer_idx)
        k, v = buf.unbind(1)
        return k.to(self.compute_dtype), v.to(self.compute_dtype)  # positive: f6 CL004 manager accessor widens both planes

    def get_layer_kv_blocks(self, layer_idx: int, block_ids):
        buf = self.get_buffers(layer_idx)[block_ids]
        return buf.unbind(1)

    def get_layer_scale(self, layer_idx: int):
        return self.kv_scales[layer_idx].to(self.compute_dtype)  # negative: scale
