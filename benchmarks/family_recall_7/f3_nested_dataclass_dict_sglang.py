"""f3: a dict of dataclass groups, each holding a list of (k, v) NamedTuples per layer."""
import dataclasses
from typing import List, NamedTuple

import torch


class Plane(NamedTuple):
    k: torch.Tensor
    v: torch.Tensor


@dataclasses.dataclass
class Group:
    planes: List[Plane]
    layer_ids: List[int]


class GroupedPool:
    def __init__(self, size, full_layers, swa_layers, heads, dim, dtype):
        def mk():
            return Plane(
                torch.empty((size, heads, dim), dtype=dtype, device="cuda"),
                torch.empty((size, heads, dim), dtype=dtype, device="cuda"),
            )

        self.groups = {
            "full": Group([mk() for _ in full_layers], list(full_layers)),
            "swa": Group([mk() for _ in swa_layers], list(swa_layers)),
        }


class GroupedBackend:
    def __init__(self, pool: GroupedPool, dtype):
        self.pool = pool
        self.dtype = dtype

    def forward_decode(self, q, k, v, layer, forward_batch):
        g = self.pool.groups["full"]
        j = g.layer_ids.index(layer.layer_id)
        keys = g.planes[j].k.to(self.dtype)  # positive: f3 CL001 dict -> dataclass -> list -> NamedTuple field
        vals = self.pool.groups["swa"].planes[0][1].to(self.dtype)  # positive: f3 CL001 positional field of a nested plane
        ids = torch.tensor(g.layer_ids, dtype=torch.int32)  # negative: layer id list
        swa_rows = self.pool.groups["swa"].planes[0].k[forward_batch.swa_out_cache_loc].to(self.dtype)  # negative: the step's SWA rows
        return keys, vals, ids, swa_rows
