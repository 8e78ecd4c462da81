import importlib

import torch

_pool_mod = importlib.import_module(".pool", __package__)


class DynamicPoolBackend:
    def __init__(self, size, num_layers):
        self.pool = _pool_mod.FP8LatentPool(size, num_layers)

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        lat = self.pool.latent(layer.layer_id).to(q.dtype)  # positive: f7 CL001 pool class from a dynamically imported module
        rope = self.pool.kv[layer.layer_id][..., 512:].bfloat16()  # positive: f7 CL001 every token's rope part of that pool
        lens = self.pool.req_lens[forward_batch.req_pool_indices].to(torch.int64)  # negative: per-request lengths
        return q, lat, rope, lens
