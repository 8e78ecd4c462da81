"""sglang-style XPU fallback decode: .to(None, dtype) and .to(*target) spellings against device-only moves."""
import torch


class XPUFallbackDecode:
    def __init__(self, model_runner):
        self.token_to_kv_pool = model_runner.token_to_kv_pool
        self._target = (model_runner.device, model_runner.dtype)
        self._place = (model_runner.device,)

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        k_buf = self.token_to_kv_pool.get_key_buffer(layer.layer_id)
        v_buf = self.token_to_kv_pool.get_value_buffer(layer.layer_id)
        keys = k_buf.to(None, q.dtype)  # positive: f5 CL001 device None, dtype positional
        values = v_buf.to(*self._target)  # positive: f5 CL001 (device, dtype) tuple unpacked into .to
        same = v_buf.to(*self._place)  # negative: device only
        moved = k_buf.to(q.device, non_blocking=True)  # negative: device only
        return self._sdpa(q, keys, values, same, moved)

    def _sdpa(self, q, keys, values, same, moved):
        return q
