import functools

import torch


def _compose(*fns):
    return functools.reduce(lambda f, g: lambda x: g(f(x)), fns)


class DebugDenseBackend:
    def __init__(self, model_runner):
        self.dtype = model_runner.dtype
        self.widen = _compose(torch.Tensor.contiguous, functools.partial(torch.Tensor.to, dtype=self.dtype))
        self.move = _compose(torch.Tensor.contiguous, functools.partial(torch.Tensor.to, device="cpu"))

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        pool = forward_batch.token_to_kv_pool
        k_dense = self.widen(pool.get_key_buffer(layer.layer_id))  # positive: f4 CL001 whole key buffer through a reduce-composed cast
        v_dense = self.widen(pool.get_value_buffer(layer.layer_id))  # positive: f4 CL001 whole value buffer
        k_rows = self.widen(pool.get_key_buffer(layer.layer_id)[forward_batch.out_cache_loc])  # negative: rows first
        k_host = self.move(pool.get_key_buffer(layer.layer_id))  # negative: device move only
        return k_dense, v_dense, k_rows, k_host
