import torch


class PoolAccessMixin:
    token_to_kv_pool = None

    def layer_kv(self, layer_id: int):
        return self.token_to_kv_pool.get_kv_buffer(layer_id)

    def layer_k_scale(self, layer_id: int):
        return self.token_to_kv_pool.k_scale_buffer[layer_id]


class TritonishBase:
    def __init__(self, model_runner):
        self.token_to_kv_pool = model_runner.token_to_kv_pool
        self.dtype = model_runner.dtype


class MixedBackend(PoolAccessMixin, TritonishBase):
    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        k_buf, v_buf = self.layer_kv(layer.layer_id)
        k_buf = k_buf.to(self.dtype)  # positive: f2 CL001 mixin accessor returns the whole key pool
        v_buf = v_buf.to(self.dtype)  # positive: f2 CL001 mixin accessor returns the whole value pool
        sc = self.layer_k_scale(layer.layer_id).to(self.dtype)  # negative: per-layer scale
        return k_buf, v_buf, sc
