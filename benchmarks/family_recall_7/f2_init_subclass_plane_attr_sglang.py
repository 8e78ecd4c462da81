"""f2: __init_subclass__ class keywords choose which buffer attribute the inherited plane() accessor reads."""
import torch


class PlaneBase:
    _plane_attr = "k_buffer"

    def __init_subclass__(cls, plane_attr="k_buffer", **kwargs):
        super().__init_subclass__(**kwargs)
        cls._plane_attr = plane_attr

    def plane(self, layer_id):
        return getattr(self, self._plane_attr)[layer_id]


class KeyPlanes(PlaneBase, plane_attr="k_buffer"):
    def __init__(self, size, layer_num, heads, dim, dtype):
        self.k_buffer = [torch.empty((size + 1, heads, dim), dtype=dtype, device="cuda") for _ in range(layer_num)]


class LengthPlanes(PlaneBase, plane_attr="lens"):
    def __init__(self, layer_num, max_reqs):
        self.lens = [torch.zeros((max_reqs,), dtype=torch.int32, device="cuda") for _ in range(layer_num)]


class SubclassKwBackend:
    def __init__(self, keys: KeyPlanes, lens: LengthPlanes, dtype):
        self.keys = keys
        self.lens = lens
        self.dtype = dtype

    def forward_decode(self, q, k, v, layer, forward_batch):
        kk = self.keys.plane(layer.layer_id).to(self.dtype)  # positive: f2 CL001 inherited plane() reads k_buffer
        flat = self.keys.plane(layer.layer_id).reshape(-1, k.shape[-1]).half()  # positive: f2 CL001 whole layer reshaped
        n = self.lens.plane(layer.layer_id).to(torch.int64)  # negative: per-request lengths
        kw = k.half()  # negative: the batch's keys
        return kk, flat, n, kw
