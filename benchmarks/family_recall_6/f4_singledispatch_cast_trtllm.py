"""functools.singledispatch converter: a Tensor overload and a list overload; callers pass pools and batches."""
import functools

import torch


@functools.singledispatch
def to_compute(x, dtype):
    raise TypeError(type(x))


@to_compute.register
def _(x: torch.Tensor, dtype):
    return x.to(dtype)  # note: generic overload, labelled at the calls that pass pool buffers


@to_compute.register
def _(x: list, dtype):
    return [to_compute(t, dtype) for t in x]


class DispatchAttention:
    def __init__(self, layer_idx):
        self.layer_idx = layer_idx

    def forward(self, q, k, v, metadata, **kwargs):
        buf = metadata.kv_cache_manager.get_buffers(self.layer_idx)
        whole = to_compute(buf, q.dtype)  # positive: f4 CL001 the layer's whole KV buffer through singledispatch
        halves = to_compute([buf[:, 0], buf[:, 1]], q.dtype)  # positive: f4 CL001 every block's K and V halves (list overload)
        qc = to_compute(q, torch.float32)  # negative: batch query
        blocks = to_compute(buf[metadata.block_ids], q.dtype)  # negative: blocks gathered first
        return whole, halves, qc, blocks
