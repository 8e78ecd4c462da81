import torch

from .base import Holder


class _Pool:
    def __init__(self, layers, size, width):
        self.kv_buffer = [torch.zeros(size, 1, width, dtype=torch.float8_e4m3fn) for _ in range(layers)]

    def get_key_buffer(self, layer_id):
        return self.kv_buffer[layer_id]


class FP8Holder(Holder[_Pool]):
    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        lat = self.layer(layer.layer_id)
        up = lat.to(q.dtype)  # positive: f7 CL001 generic base in base.py returns the pool layer
        loc = forward_batch.out_cache_loc.long()  # negative: indices
        return up, loc
