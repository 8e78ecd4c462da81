from .pool import MixedMHAPool


class MixedPoolBackend:
    def __init__(self, pool: MixedMHAPool):
        self.pool = pool

    def forward_extend(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        kd = self.pool.get_dense_key(layer.layer_id)  # note: per-step caller of the CL004 accessor, not labelled again
        vd = self.pool.v_buffer[layer.layer_id].half()  # positive: f7 CL001 V layer of the pool defined in pool.py
        lens = self.pool.get_lens(forward_batch.req_pool_indices)
        return q, kd, vd, lens
