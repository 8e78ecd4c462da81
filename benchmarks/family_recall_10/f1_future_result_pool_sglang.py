"""The pool handed to the backend through a concurrent.futures.Future resolved at startup."""
from concurrent.futures import Future

import torch


class FutureMLABackend:
    def __init__(self, pool_future: Future):
        self._pool_future = pool_future
        self.scale_future: Future = Future()
        self.scale_future.set_result(torch.ones(1))

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        pool = self._pool_future.result()
        lat = pool.get_key_buffer(layer.layer_id).to(q.dtype)  # positive: f1 CL001 pool resolved from a Future
        s = self.scale_future.result().to(q.dtype)  # negative: a one-element scale from a Future
        loc = forward_batch.out_cache_loc
        rows = pool.get_key_buffer(layer.layer_id)[loc].to(q.dtype)  # negative: gather-then-cast
        return lat, s, rows


class FutureModelRunner:
    def init_memory_pool(self, backend_future: Future, pool):
        backend_future.set_result(pool)
