import torch
from tensorrt_llm._torch.pyexecutor.resource_manager import ResourceManagerType


class VanillaFallbackRunner:
    def __init__(self, model_engine, layer_idx, num_kv_heads, head_dim):
        self.model_engine = model_engine
        self.layer_idx = layer_idx
        self.num_kv_heads = num_kv_heads
        self.head_dim = head_dim

    def _kv_manager(self):
        rm = self.model_engine.resource_manager
        return rm.get_resource_manager(ResourceManagerType.KV_CACHE_MANAGER)

    def forward(self, q, k, v, metadata):
        mgr = self._kv_manager()
        buf = mgr.get_buffers(self.layer_idx)
        wide = buf.to(q.dtype)  # positive: f1 CL001 buffer fetched from the resource manager looked up by type
        cached = metadata.kv_cache_params.num_cached_tokens_per_seq
        past = torch.tensor(cached, dtype=torch.int32)  # negative: per-sequence counts
        k_new = k.to(q.dtype)  # negative: this step's keys
        return self._attend(q, k_new, v, wide, past)

    def _attend(self, q, k, v, kv, past):
        return q
