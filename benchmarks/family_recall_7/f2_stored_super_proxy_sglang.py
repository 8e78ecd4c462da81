"""f2: the backend keeps its super() proxy in an attribute and reaches the base accessors through it."""
import torch


class PoolReader:
    def __init__(self, pool):
        self.pool = pool

    def get_key_buffer(self, layer_id):
        return self.pool.k_buffer[layer_id - self.pool.start_layer]

    def get_value_buffer(self, layer_id):
        return self.pool.v_buffer[layer_id - self.pool.start_layer]


class ProxyBackend(PoolReader):
    def __init__(self, pool, dtype):
        super().__init__(pool)
        self._base = super()
        self.dtype = dtype

    def get_key_buffer(self, layer_id, loc=None):
        return super().get_key_buffer(layer_id)[loc]

    def forward_decode(self, q, k, v, layer, forward_batch):
        kk = self._base.get_key_buffer(layer.layer_id).to(self.dtype)  # positive: f2 CL001 base accessor through a stored super() proxy
        vv = self._base.get_value_buffer(layer.layer_id).to(self.dtype)  # positive: f2 CL001 same for V
        rows = self.get_key_buffer(layer.layer_id, forward_batch.out_cache_loc).to(self.dtype)  # negative: the override gathers rows
        k_new = k.to(self.dtype)  # negative: the batch's new keys
        return kk, vv, rows, k_new


class MHAPoolLite:
    def __init__(self, size, layer_num, heads, dim, dtype):
        self.start_layer = 0
        self.k_buffer = [torch.empty((size + 1, heads, dim), dtype=dtype, device="cuda") for _ in range(layer_num)]
        self.v_buffer = [torch.empty((size + 1, heads, dim), dtype=dtype, device="cuda") for _ in range(layer_num)]
