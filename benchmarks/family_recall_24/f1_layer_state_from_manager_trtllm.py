# TensorRT-LLM pytorch flow: an attention layer builds a state object from the KV cache
# manager in forward() and asks it for the dense buffer on the no-FP8-kernel path.
import torch


class LayerKVState:
    def __init__(self, manager, layer_idx):
        self.buffer = manager.get_buffers(layer_idx)
        self.scale = manager.kv_scales[layer_idx] if manager.kv_scales is not None else None

    def dense(self, dtype):
        return self.buffer.to(dtype)  # positive: f1 CL001 whole manager buffer of the layer

    def dense_scale(self):
        return self.scale.float()  # negative: per-layer scale, not the cache


class VanillaFallbackAttention:
    def forward(self, q, k, v, metadata):
        state = LayerKVState(metadata.kv_cache_manager, self.layer_idx)
        kv = state.dense(q.dtype)
        s = state.dense_scale() if state.scale is not None else None
        return self._sdpa(q, kv, metadata, s)
