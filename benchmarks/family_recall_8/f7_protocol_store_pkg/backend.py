import torch

from .pool import LatentPool
from .protocols import LatentSource


class ProtoBackend:
    def __init__(self, layers, size, width):
        self.source: LatentSource = LatentPool(layers, size, width)

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        lat = self.source.latent(layer.layer_id)
        up = lat.to(q.dtype)  # positive: f7 CL001 Protocol-typed attribute holding a pool from another module
        loc = forward_batch.out_cache_loc.to(torch.int64)  # negative: slot indices
        return up, loc
