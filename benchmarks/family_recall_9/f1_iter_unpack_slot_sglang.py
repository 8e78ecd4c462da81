"""Per-layer slot objects with __iter__, unpacked as `k, v = slot` and splatted into a call."""
import torch


class LayerPair:
    def __init__(self, pool, layer_id):
        self.pool = pool
        self.layer_id = layer_id

    def __iter__(self):
        return iter((self.pool.k_buffer[self.layer_id], self.pool.v_buffer[self.layer_id]))


class BatchRowsPair:
    def __init__(self, pool, layer_id, loc):
        self.rows = (pool.k_buffer[layer_id][loc], pool.v_buffer[layer_id][loc])

    def __iter__(self):
        return iter(self.rows)


class IterSlotBackend:
    def forward_extend(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        pool = forward_batch.token_to_kv_pool
        kb, vb = LayerPair(pool, layer.layer_id)
        kd = kb.to(q.dtype)  # positive: f1 CL001 K layer unpacked from the slot's __iter__
        kr, vr = BatchRowsPair(pool, layer.layer_id, forward_batch.out_cache_loc)
        kr_d = kr.to(q.dtype)  # negative: rows gathered for this step
        return self._mix(q, kd, kr_d, *LayerPair(pool, layer.layer_id))

    def _mix(self, q, kd, kr_d, k_all, v_all):
        return v_all.float()  # positive: f1 CL001 V layer splatted from the slot into this helper
