import enum

import torch


class Plane(enum.Enum):
    K = "k"
    V = "v"

    def of(self, pool, layer_id):
        if self is Plane.K:
            return pool.get_key_buffer(layer_id)
        return pool.get_value_buffer(layer_id)

    def rows(self, pool, layer_id, loc):
        return self.of(pool, layer_id)[loc]


class EnumPlaneBackend:
    def forward_extend(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        pool = forward_batch.token_to_kv_pool
        out = {}
        for plane in Plane:
            out[plane] = plane.of(pool, layer.layer_id).to(q.dtype)  # positive: f2 CL001 whole K and V buffers from an Enum member method
        return out

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        pool = forward_batch.token_to_kv_pool
        loc = forward_batch.out_cache_loc
        last_k = Plane.K.rows(pool, layer.layer_id, loc).to(q.dtype)  # negative: rows gathered by the member method
        v_all = Plane["V"].of(pool, layer.layer_id).half()  # positive: f2 CL001 whole value buffer through Plane["V"]
        return last_k, v_all
