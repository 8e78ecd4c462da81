"""f1: bound pool accessors kept in a dataclass of callables, called per step."""
import dataclasses
from typing import Callable

import torch


class FlatPool:
    def __init__(self, size, layer_num, dtype, device):
        self.start_layer = 0
        self.store = [torch.zeros((size, 1, 576), dtype=dtype, device=device) for _ in range(layer_num)]

    def layer(self, layer_id):
        return self.store[layer_id - self.start_layer]

    def rows(self, layer_id, loc):
        return self.store[layer_id - self.start_layer][loc]


@dataclasses.dataclass
class Readers:
    whole: Callable
    picked: Callable


class RecordBackend:
    def __init__(self, pool: FlatPool, model_dtype):
        self.model_dtype = model_dtype
        self.readers = Readers(whole=pool.layer, picked=pool.rows)

    def forward_decode(self, q, layer, forward_batch):
        fetch = self.readers.whole
        dense = fetch(layer.layer_id).to(self.model_dtype)  # positive: f1 CL001 a stored bound accessor
        sel = self.readers.picked(layer.layer_id, forward_batch.out_cache_loc).to(self.model_dtype)  # negative: rows of this step
        return dense, sel

    def forward_extend(self, q, layer, forward_batch):
        r = self.readers
        latent = r.whole(layer.layer_id)[:, :, :512].to(dtype=q.dtype)  # positive: f1 CL001 latent of every token
        return latent
