# TensorRT-LLM KVCacheManager subclass for a debug build: get_buffers returns a widened copy.
import torch
from tensorrt_llm._torch.pyexecutor.resource_manager import KVCacheManager


class DebugKVCacheManager(KVCacheManager):
    def get_buffers(self, layer_idx, kv_layout="NHD"):
        raw = super().get_buffers(layer_idx, kv_layout)
        if self.debug_widen:
            return raw.to(torch.float32)  # positive: f6 CL004 manager accessor widens the whole layer buffer
        return raw

    def get_block_view(self, layer_idx, block_ids):
        return super().get_buffers(layer_idx)[block_ids].to(torch.float32)  # negative: blocks selected first
