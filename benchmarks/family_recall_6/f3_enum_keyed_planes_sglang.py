"""Pool planes in a dict keyed by an Enum; dict(zip(...)) for the scales."""
import enum

import torch


class Plane(enum.Enum):
    KEY = "k"
    VALUE = "v"


class EnumPlaneBackend:
    def __init__(self, model_runner):
        pool = model_runner.token_to_kv_pool
        self.planes = {Plane.KEY: pool.k_buffer, Plane.VALUE: pool.v_buffer}
        self.scales = dict(zip(Plane, (pool.k_scale_buffer, pool.v_scale_buffer)))

    def forward_extend(self, q, k, v, layer, forward_batch):
        kp = self.planes[Plane.KEY][layer.layer_id].to(q.dtype)  # positive: f3 CL001 whole key plane, enum-keyed dict
        vals = {p: self.planes[p][layer.layer_id] for p in Plane}
        vp = vals[Plane.VALUE].to(q.dtype)  # positive: f3 CL001 whole value plane from the comprehension
        ks = self.scales[Plane.KEY][layer.layer_id].to(q.dtype)  # negative: scales
        raw = vals[Plane.KEY].view(torch.uint8)  # negative: reinterpret
        return kp, vp, ks

    def forward_decode(self, q, k, v, layer, forward_batch):
        loc = forward_batch.out_cache_loc
        kp = self.planes[Plane.KEY][layer.layer_id][loc].to(q.dtype)  # negative: gather-then-cast
        for p in Plane:
            self.planes[p][layer.layer_id].float()  # positive: f3 CL001 each plane of the layer, whole
        return kp
