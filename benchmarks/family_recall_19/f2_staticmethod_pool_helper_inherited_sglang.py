import torch


class TorchNativeBackendBase:
    @staticmethod
    def _widen(buf: torch.Tensor, dtype: torch.dtype) -> torch.Tensor:
        return buf.to(dtype)  # positive: f2 CL001 staticmethod; every caller passes a whole pool plane

    @staticmethod
    def _widen_rows(buf: torch.Tensor, loc: torch.Tensor, dtype: torch.dtype) -> torch.Tensor:
        return buf[loc].to(dtype)  # negative: rows


class XPUTorchNativeBackend(TorchNativeBackendBase):
    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        pool = forward_batch.token_to_kv_pool
        k_buf = self._widen(pool.get_key_buffer(layer.layer_id), q.dtype)
        v_buf = XPUTorchNativeBackend._widen(pool.get_value_buffer(layer.layer_id), q.dtype)
        return k_buf, v_buf

    def forward_extend(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        pool = forward_batch.token_to_kv_pool
        return self._widen_rows(pool.get_key_buffer(layer.layer_id), forward_batch.out_cache_loc, q.dtype)
