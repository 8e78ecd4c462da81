import torch

from .pool import LatentPool


class PropertyBackend:
    def __init__(self, pool: LatentPool, dtype):
        self.pool = pool
        self.dtype = dtype

    def forward_decode(self, q, layer, forward_batch):
        lat = self.pool.latent_planes[layer.layer_id].to(self.dtype)  # positive: f7 CL001 property from pool.py returns the per-layer list
        nope = self.pool.latent_planes[layer.layer_id][..., :512].float()  # positive: f7 CL001 latent of every token
        table = self.pool.token_table[forward_batch.req_pool_indices].to(torch.int64)  # negative: token-table rows
        return lat, nope, table
