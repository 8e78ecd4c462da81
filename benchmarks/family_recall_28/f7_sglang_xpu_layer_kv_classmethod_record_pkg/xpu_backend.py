"""XPU fallback attention backend reading the pool through kv_views.LayerKV."""
import torch

from .kv_views import LayerKV


class XPUFallbackAttnBackend:
    def __init__(self, model_runner):
        self.pool = model_runner.token_to_kv_pool
        self.scaling = 1.0 / model_runner.model_config.head_dim ** 0.5

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        k_all, v_all = LayerKV.from_pool(self.pool, layer.layer_id).dense(q.dtype)
        return torch.ops.sgl_kernel.xpu_decode(q, k_all, v_all, forward_batch.req_to_token, self.scaling)

    def forward_extend(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        k_rows, v_rows = LayerKV.from_pool(self.pool, layer.layer_id).rows(forward_batch.out_cache_loc, q.dtype)
        k_new = k.to(q.dtype)  # negative: new tokens
        return torch.ops.sgl_kernel.xpu_extend(q, k_new, v, k_rows, v_rows, self.scaling)
