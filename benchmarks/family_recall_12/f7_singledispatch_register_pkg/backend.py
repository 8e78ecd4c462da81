import torch

from .dispatch import to_compute
from .views import LayerView, RowsView


class DispatchBackend:
    def __init__(self, model_runner):
        self.dtype = model_runner.dtype

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        pool = forward_batch.token_to_kv_pool
        whole = to_compute(LayerView(pool.get_key_buffer(layer.layer_id), layer.layer_id), self.dtype)
        rows = to_compute(RowsView(pool.get_value_buffer(layer.layer_id)[forward_batch.out_cache_loc]), self.dtype)
        qq = to_compute(q, self.dtype)
        return whole, rows, qq

    def forward_extend(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        return to_compute([k, v], self.dtype)
