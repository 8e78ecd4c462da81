import torch
from tensorrt_llm._torch.pyexecutor.resource_manager import KVCacheManager


class UpcastingKVCacheManager(KVCacheManager):
    """Serves bf16 views of the fp8 pool to backends without fp8 kernels."""

    def __init__(self, *args, compute_dtype=torch.bfloat16, **kwargs):
        super().__init__(*args, **kwargs)
        self.compute_dtype = compute_dtype

    def get_layer_kv(self, layer_idx: int, kv_layout: str = "NHD"):
        buf = self.get_buffers(layer_idx)
        if kv_layout == "HND":
            buf = buf.transpose(2, 3)
        return buf.to(self.compute_dtype)  # positive: f6 CL004 manager accessor converts the whole layer buffer

    def get_block_ids_tensor(self, request_ids):
        ids = [self.get_cache_indices(r) for r in request_ids]
        return torch.tensor(sum(ids, []), dtype=torch.int32)  # negative: block ids

    def get_scale(self, layer_idx):
        return self.kv_scales[layer_idx].to(self.compute_dtype)  # negative: per-layer scale
