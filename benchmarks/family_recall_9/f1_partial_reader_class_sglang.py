"""Readers built per layer from a partial of the reader class pre-bound to pool attributes."""
import functools

import torch


class PlaneReader:
    def __init__(self, k_planes, v_planes, layer_id):
        self.k = k_planes[layer_id]
        self.v = v_planes[layer_id]


class RowReader:
    def __init__(self, lens, layer_id):
        self.lens = lens


class PartialReaderBackend:
    def __init__(self, model_runner):
        pool = model_runner.token_to_kv_pool
        self._reader = functools.partial(PlaneReader, pool.k_buffer, pool.v_buffer)
        self._rows = functools.partial(RowReader, model_runner.req_to_token_pool.req_to_token)

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        r = self._reader(layer.layer_id)
        kd = r.k.to(q.dtype)  # positive: f1 CL001 k_buffer layer through a partial-built reader
        vd = r.v.to(q.dtype)  # positive: f1 CL001 v_buffer layer through a partial-built reader
        rr = self._rows(layer.layer_id)
        tbl = rr.lens.to(torch.int64)  # negative: req_to_token index table
        return q, kd, vd, tbl
