"""The model runner: registered caches and the per-step loop."""
from .dense_ops import densify as _densify
from .dense_ops import densify_blocks, key_plane_same_dtype, value_planes


class DenseFallbackRunner:
    def __init__(self, vllm_config, device):
        self.compute_dtype = vllm_config.model_config.dtype
        self.kv_caches = []

    def initialize_kv_cache(self, kv_cache_config):
        self.kv_caches = self._allocate(kv_cache_config)
        self.plane0 = key_plane_same_dtype(self.kv_caches[0])

    def execute_model(self, scheduler_output, intermediate_tensors=None):
        dense = [_densify(c, self.compute_dtype) for c in self.kv_caches]
        values = value_planes(self.kv_caches[-1], self.compute_dtype)
        blocks = scheduler_output.scheduled_block_ids
        recent = densify_blocks(self.kv_caches[0], blocks, self.compute_dtype)
        return self._forward(scheduler_output, dense, values, recent)
