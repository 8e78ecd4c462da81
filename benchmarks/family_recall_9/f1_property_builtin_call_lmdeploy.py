"""Cache views exposed with `property(...)` called in the class body (no decorator)."""
import torch


def _value_of(self):
    return self.engine.gpu_cache[self.layer_idx][1]


class LayerCacheView:
    k_cache = property(lambda self: self.engine.gpu_cache[self.layer_idx][0])
    v_cache = property(fget=_value_of)
    block_offsets = property(lambda self: self.step_ctx.block_offsets)

    def __init__(self, engine, step_ctx, layer_idx):
        self.engine = engine
        self.step_ctx = step_ctx
        self.layer_idx = layer_idx


class FallbackAttention:
    def __init__(self, view: LayerCacheView):
        self.view = view

    def forward(self, query, key, value, attn_metadata, k_scales_zeros=None, v_scales_zeros=None):
        kc = self.view.k_cache.to(query.dtype)  # positive: f1 CL001 gpu_cache K plane via property(lambda)
        vc = self.view.v_cache.half()  # positive: f1 CL001 gpu_cache V plane via property(fget=)
        offs = self.view.block_offsets.to(torch.int64)  # negative: block table
        return query, kc, vc, offs
