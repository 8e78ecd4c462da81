# Decorated accessors and dispatch tables of readers and casts.
import functools
from typing import Callable, Dict

import torch


def _synchronized(fn):
    @functools.wraps(fn)
    def wrapper(self, *args, **kwargs):
        if self.layer_transfer_counter is not None:
            self.layer_transfer_counter.wait_until(args[0])
        return fn(self, *args, **kwargs)

    return wrapper


class DecoratedPool:
    def __init__(self, size: int, page_size: int, head_num: int, head_dim: int, layer_num: int, dtype: torch.dtype, device: str):
        self.layer_transfer_counter = None
        self.k_buffer = [torch.zeros((size + page_size, head_num, head_dim), dtype=dtype, device=device) for _ in range(layer_num)]
        self.v_buffer = [torch.zeros((size + page_size, head_num, head_dim), dtype=dtype, device=device) for _ in range(layer_num)]

    @_synchronized
    def keys_of(self, layer_id: int) -> torch.Tensor:
        return self.k_buffer[layer_id]

    @_synchronized
    def values_of(self, layer_id: int) -> torch.Tensor:
        return self.v_buffer[layer_id]


_CASTS: Dict[str, Callable[[torch.Tensor], torch.Tensor]] = {
    "bf16": torch.Tensor.bfloat16,
    "fp32": torch.Tensor.float,
}


class DispatchBackend:
    def __init__(self, pool: DecoratedPool, mode: str = "bf16"):
        self.pool = pool
        self.mode = mode
        self._readers = {"k": pool.keys_of, "v": pool.values_of}
        self._reader_list = [pool.keys_of, pool.values_of]

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        k_all = self.pool.keys_of(layer.layer_id).to(q.dtype)  # positive: f4 CL001 decorated accessor still returns the whole arena
        v_all = self._readers["v"](layer.layer_id).half()  # positive: f4 CL001 dict dispatch to the value accessor
        k_list = self._reader_list[0](layer.layer_id).float()  # positive: f4 CL001 list dispatch to the key accessor
        conv = _CASTS[self.mode](self.pool.values_of(layer.layer_id))  # positive: f4 CL001 dispatch dict of unbound casts applied to the whole pool
        q_conv = _CASTS["fp32"](q)  # negative: dispatch cast of q
        rows = self._readers["k"](layer.layer_id)[forward_batch.out_cache_loc].to(q.dtype)  # negative: gathered rows
        return k_all, v_all, k_list, conv, q_conv, rows
