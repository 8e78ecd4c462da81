"""f2: a class decorator installs accessor methods on a pool class; the backend calls them."""
import torch


def with_plane_accessors(cls):
    def plane(self, layer_id):
        return self.planes[layer_id - self.start_layer]

    def plane_rows(self, layer_id, loc):
        return self.planes[layer_id - self.start_layer].index_select(0, loc)

    cls.plane = plane
    cls.plane_rows = plane_rows
    return cls


@with_plane_accessors
class DecoratedMLAPool:
    def __init__(self, size, layer_num, dtype, device, start_layer=0):
        self.start_layer = start_layer
        self.planes = [
            torch.zeros((size + 1, 1, 576), dtype=dtype, device=device) for _ in range(layer_num)
        ]


class DecoratedBackend:
    def __init__(self, pool: DecoratedMLAPool, dtype):
        self.pool = pool
        self.dtype = dtype

    def forward_decode(self, q, layer, forward_batch):
        full = self.pool.plane(layer.layer_id).to(self.dtype)  # positive: f2 CL001 accessor installed by the class decorator
        rows = self.pool.plane_rows(layer.layer_id, forward_batch.out_cache_loc).to(self.dtype)  # negative: index_select of the step's rows
        return full, rows

    def forward_extend(self, q, layer, forward_batch):
        flat = self.pool.plane(layer.layer_id).view(-1, 576).float()  # positive: f2 CL001 whole layer, flattened
        prefix = self.pool.plane(layer.layer_id)[: forward_batch.extend_num_tokens].float()  # negative: bounded by the step's token count
        return flat, prefix
