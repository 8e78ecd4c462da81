import torch


class SnapshotRunner:
    def __init__(self, vllm_config):
        self.kv_caches = []
        self.model_dtype = vllm_config.model_config.dtype
        self._thunks = []

    def initialize_kv_cache(self, kv_cache_config):
        self.kv_caches = self._allocate_kv_caches(kv_cache_config)
        self._thunks = [lambda c=c: c.to(self.model_dtype) for c in self.kv_caches]  # positive: f4 CL001 the thunks run in execute_model; default argument captures each whole cache
        self._shapes = [lambda c=c: tuple(c.shape) for c in self.kv_caches]  # negative: shapes only

    def execute_model(self, scheduler_output, intermediate_tensors=None):
        if scheduler_output.debug_snapshot:
            snaps = [t() for t in self._thunks]
        else:
            snaps = []
        blocks = scheduler_output.block_ids
        rows = [c[:, blocks].to(self.model_dtype) for c in self.kv_caches]  # negative: block gather
        return snaps, rows
