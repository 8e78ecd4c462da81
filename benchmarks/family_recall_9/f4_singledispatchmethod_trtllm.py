"""functools.singledispatchmethod with Tensor and list overloads, given manager buffers only."""
import functools

import torch


class DispatchAttention:
    def __init__(self, layer_ids, compute_dtype=torch.bfloat16):
        self.layer_ids = layer_ids
        self.compute_dtype = compute_dtype

    @functools.singledispatchmethod
    def _dense(self, x):
        raise TypeError(type(x))

    @_dense.register
    def _(self, x: torch.Tensor):
        return x.to(self.compute_dtype)  # positive: f4 CL001 Tensor overload reached only with whole manager buffers

    @_dense.register
    def _(self, x: list):
        return [self._dense(e) for e in x]

    def forward(self, q, k, v, metadata):
        mgr = metadata.kv_cache_manager
        one = self._dense(mgr.get_buffers(self.layer_ids[0]))
        many = self._dense([mgr.get_buffers(i) for i in self.layer_ids])
        pos = metadata.position_ids.to(torch.int32)  # negative: positions
        q_c = q.to(self.compute_dtype)  # negative: batch query
        return one, many, pos, q_c
