"""f4: attribute chains walked with functools.reduce(getattr, names, obj)."""
import functools

import torch


class ReduceBackend:
    def __init__(self, model_runner):
        self.runner = model_runner
        self.dtype = model_runner.dtype

    def forward_decode(self, q, k, v, layer, forward_batch):
        bufs = functools.reduce(getattr, ("runner", "token_to_kv_pool", "k_buffer"), self)
        kk = bufs[layer.layer_id].to(self.dtype)  # positive: f4 CL001 reduce(getattr) reaches the per-layer K list
        acc = functools.reduce(getattr, ["token_to_kv_pool", "get_value_buffer"], self.runner)
        vv = acc(layer.layer_id).half()  # positive: f4 CL001 accessor reached by reduce(getattr)
        lens = functools.reduce(getattr, ("seq_lens",), forward_batch).to(torch.int64)  # negative: sequence lengths
        return kk, vv, lens

    def forward_extend(self, q, k, v, layer, forward_batch):
        pool = functools.reduce(getattr, ("runner", "token_to_kv_pool"), self)
        new_k = pool.k_buffer[layer.layer_id][forward_batch.out_cache_loc].to(self.dtype)  # negative: the step's rows
        return new_k


class MHATokenToKVPoolLite:
    def __init__(self, size, layer_num, heads, dim, dtype):
        self.k_buffer = [torch.empty((size + 1, heads, dim), dtype=dtype, device="cuda") for _ in range(layer_num)]
        self.v_buffer = [torch.empty((size + 1, heads, dim), dtype=dtype, device="cuda") for _ in range(layer_num)]

    def get_value_buffer(self, layer_id):
        return self.v_buffer[layer_id]
