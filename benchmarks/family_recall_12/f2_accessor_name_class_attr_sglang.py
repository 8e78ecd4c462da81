import torch


class PlaneBackendBase:
    plane_getter = "get_key_buffer"

    def __init__(self, model_runner):
        self.compute_dtype = model_runner.dtype

    def _plane(self, forward_batch, layer):
        return getattr(forward_batch.token_to_kv_pool, self.plane_getter)(layer.layer_id)

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        plane = self._plane(forward_batch, layer)
        return self._attend(q, plane)

    def _attend(self, q, plane):
        return plane.to(self.compute_dtype)  # positive: f2 CL001 key plane chosen by a class attribute name


class ValuePlaneBackend(PlaneBackendBase):
    plane_getter = "get_value_buffer"


class ScalePlaneBackend(PlaneBackendBase):
    plane_getter = "get_key_scale"

    def _attend(self, q, plane):
        return plane.to(torch.float32)  # negative: the subclass names the small per-layer scale accessor
