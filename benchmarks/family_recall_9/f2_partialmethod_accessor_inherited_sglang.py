"""Pool accessors defined with functools.partialmethod in a base pool, inherited by an FP8 pool."""
import functools

import torch


class PlanePool:
    def __init__(self, size, num_layers, dtype, device="cuda"):
        self.planes = [[torch.zeros(size, 8, 128, dtype=dtype, device=device) for _ in range(num_layers)] for _ in range(2)]
        self.req_lens = torch.zeros(4096, dtype=torch.int32, device=device)

    def _plane(self, which, layer_id):
        return self.planes[which][layer_id]

    get_k = functools.partialmethod(_plane, 0)
    get_v = functools.partialmethod(_plane, 1)

    def _lens(self, offset, idx):
        return self.req_lens[idx] + offset

    lens_at = functools.partialmethod(_lens, 0)


class FP8PlanePool(PlanePool):
    def __init__(self, size, num_layers, device="cuda"):
        super().__init__(size, num_layers, torch.float8_e4m3fn, device)


class PlaneBackend:
    def __init__(self, pool: FP8PlanePool):
        self.pool = pool

    def forward_extend(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        kd = self.pool.get_k(layer.layer_id).to(q.dtype)  # positive: f2 CL001 K plane via an inherited partialmethod accessor
        vd = self.pool.get_v(layer.layer_id).bfloat16()  # positive: f2 CL001 V plane via an inherited partialmethod accessor
        lens = self.pool.lens_at(forward_batch.req_pool_indices).float()  # negative: per-request lengths
        return q, kd, vd, lens
