"""f3: get_kv_buffer's pair turned into a NamedTuple with _make, and into a dict with _asdict()."""
from typing import NamedTuple

import torch


class KVPair(NamedTuple):
    k: torch.Tensor
    v: torch.Tensor


class MakeBackend:
    def __init__(self, model_runner):
        self.pool = model_runner.token_to_kv_pool
        self.dtype = model_runner.dtype

    def forward_decode(self, q, k, v, layer, forward_batch):
        pair = KVPair._make(self.pool.get_kv_buffer(layer.layer_id))
        kk = pair.k.to(self.dtype)  # positive: f3 CL001 NamedTuple built with _make from the accessor's pair
        d = pair._asdict()
        vv = d["v"].bfloat16()  # positive: f3 CL001 the _asdict() view of the same pair
        loc = forward_batch.out_cache_loc
        rows = KVPair._make((pair.k[loc], pair.v[loc]))
        new = rows.k.to(self.dtype)  # negative: rows of this step
        sizes = KVPair._make(t.shape for t in pair)  # negative: shapes
        return kk, vv, new, sizes
