import torch


class FlashInferTrtllmAttention:
    def __init__(self, layer_idx, num_heads, head_dim):
        self.layer_idx = layer_idx
        self.num_heads = num_heads
        self.head_dim = head_dim

    def forward(self, q, k, v, metadata, *, kv_buffer=None):
        if kv_buffer is None:
            kv_buffer = metadata.kv_cache_manager.get_buffers(self.layer_idx)
        return self._paged_run(q, kv_buffer, metadata)

    def _paged_run(self, q, kv_buffer, metadata):
        return q


class Bf16KVWrapperAttention(FlashInferTrtllmAttention):
    """FP8 cache on a GPU without FP8 paged kernels: widen before the base forward."""

    def forward(self, q, k, v, metadata, *, kv_buffer=None):
        mgr = metadata.kv_cache_manager
        full = mgr.get_buffers(self.layer_idx)
        return super().forward(q, k, v, metadata, kv_buffer=full.to(q.dtype))  # positive: f2 CL001 whole manager buffer widened for super().forward


class ScaleOnlyWrapperAttention(FlashInferTrtllmAttention):
    def forward(self, q, k, v, metadata, *, kv_buffer=None):
        scale = metadata.kv_scales[self.layer_idx].to(q.dtype)  # negative: per-layer scale, not the pool
        return super().forward(q * scale, k, v, metadata)
