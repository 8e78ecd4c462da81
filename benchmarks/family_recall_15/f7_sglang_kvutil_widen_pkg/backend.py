from . import kvutil
from .kvutil import widen_rows


class XPUFallbackBackend:
    def __init__(self, model_runner):
        self.model_runner = model_runner

    def forward_decode(self, q, k, v, layer, forward_batch):
        pool = forward_batch.token_to_kv_pool
        kbuf = kvutil.widen_layer(pool.get_key_buffer(layer.layer_id), q.dtype)
        vbuf = kvutil.widen_layer(pool.get_value_buffer(layer.layer_id), q.dtype)
        meta = kvutil.pack_meta(forward_batch.seq_lens)
        if layer.layer_id == pool.start_layer:
            self.all_keys = kvutil.widen_key_planes([pool.get_key_buffer(i) for i in range(pool.start_layer, pool.end_layer)], q.dtype)
        return self._sdpa(q, kbuf, vbuf, meta)

    def forward_extend(self, q, k, v, layer, forward_batch):
        pool = forward_batch.token_to_kv_pool
        kr = widen_rows(pool.get_key_buffer(layer.layer_id), forward_batch.out_cache_loc, q.dtype)
        vr = widen_rows(pool.get_value_buffer(layer.layer_id), forward_batch.out_cache_loc, q.dtype)
        return self._sdpa(q, kr, vr, None)

    def _sdpa(self, q, k, v, meta):
        return q
