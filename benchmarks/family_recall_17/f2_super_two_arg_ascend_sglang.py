"""sglang Ascend: the NPU backend reuses the torch-native base's layer accessor through the
two-argument super() form and widens what it returns (no FP8 paged kernel on the NPU)."""
import torch


class TorchNativeAttnBase:
    def _layer_kv(self, layer, forward_batch):
        pool = forward_batch.token_to_kv_pool
        return pool.get_key_buffer(layer.layer_id), pool.get_value_buffer(layer.layer_id)

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        k_buf, v_buf = self._layer_kv(layer, forward_batch)
        return self._sdpa(q, k_buf, v_buf, forward_batch)


class AscendFallbackBackend(TorchNativeAttnBase):
    def __init__(self, model_runner):
        self.kv_cache_dtype = model_runner.kv_cache_dtype
        self.fia_supports_fp8 = False

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        if self.fia_supports_fp8:
            return super(AscendFallbackBackend, self).forward_decode(q, k, v, layer, forward_batch)
        k_buf, v_buf = super(AscendFallbackBackend, self)._layer_kv(layer, forward_batch)
        k_buf = k_buf.to(q.dtype)  # positive: f2 CL001 whole key layer from the inherited accessor
        v_buf = v_buf.to(q.dtype)  # positive: f2 CL001 whole value layer from the inherited accessor
        return self._sdpa(q, k_buf, v_buf, forward_batch)

    def forward_extend(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        k_buf, _ = super(AscendFallbackBackend, self)._layer_kv(layer, forward_batch)
        prefix = k_buf[forward_batch.req_to_token_pool.req_to_token[0, :16]]
        return self._sdpa(q, prefix.to(q.dtype), None, forward_batch)  # negative: 16 gathered rows

    def _sdpa(self, q, k_buf, v_buf, forward_batch):
        return q
