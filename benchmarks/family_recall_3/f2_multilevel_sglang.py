import torch


class Level0:
    def __init__(self, pool):
        self.pool = pool

    def _pool_k(self, layer_id):
        return self.pool.get_key_buffer(layer_id)


class Level1(Level0):
    def _pool_v(self, layer_id):
        return self.pool.get_value_buffer(layer_id)


class Level2(Level1):
    pass


class Level3Backend(Level2):
    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        kh = self._pool_k(layer.layer_id).half()  # positive: f2 CL001 accessor defined three levels up
        vh = self._pool_v(layer.layer_id).half()  # positive: f2 CL001 accessor defined two levels up
        return kh, vh

    def forward_extend(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        idx = forward_batch.out_cache_loc
        kh = self._pool_k(layer.layer_id)[idx].half()  # negative: gathered rows
        return kh
