"""A handle whose __class__ is switched at runtime to a subclass with a whole-layer accessor."""
import torch


class RowsHandle:
    def __init__(self, pool, layer_id, loc):
        self.pool, self.layer_id, self.loc = pool, layer_id, loc

    def data(self):
        return self.pool.get_key_buffer(self.layer_id)[self.loc]


class WholeHandle(RowsHandle):
    def data(self):
        return self.pool.get_key_buffer(self.layer_id)


class ClassSwapBackend:
    def __init__(self, pool):
        self.pool = pool

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        h = RowsHandle(self.pool, layer.layer_id, forward_batch.out_cache_loc)
        rows = h.data().to(q.dtype)  # negative: gathered rows before the switch
        h.__class__ = WholeHandle
        whole = h.data().to(q.dtype)  # positive: f2 CL001 after __class__ reassignment the handle returns the layer
        return rows, whole
