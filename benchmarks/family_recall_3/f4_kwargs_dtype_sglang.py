import torch


class KwargsCastBackend:
    def __init__(self, model_runner):
        self.cast_kwargs = {"dtype": model_runner.dtype, "non_blocking": True}
        self.device = model_runner.device

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        pool = forward_batch.token_to_kv_pool
        kb = pool.get_key_buffer(layer.layer_id).to(**self.cast_kwargs)  # positive: f4 CL001 dtype carried by **kwargs
        args = (q.dtype,)
        vb = pool.get_value_buffer(layer.layer_id).to(*args)  # positive: f4 CL001 dtype carried by *args
        dev_only = {"device": self.device}
        kd = pool.get_key_buffer(layer.layer_id).to(**dev_only)  # negative: kwargs carry only a device
        return kb, vb, kd

    def _convert(self, *tensors, **kw):
        return [t.to(**kw) for t in tensors]  # note: generic; callers decide

    def forward_extend(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        pool = forward_batch.token_to_kv_pool
        kc, vc = self._convert(*pool.get_kv_buffer(layer.layer_id), dtype=q.dtype)  # positive: f4 CL001 whole (k, v) pool star-passed to a cast helper
        kk, vv = self._convert(k, v, dtype=q.dtype)  # negative: batch k, v
        return kc, vc, kk, vv
