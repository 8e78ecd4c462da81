import dataclasses

import torch


@dataclasses.dataclass(frozen=True)
class LayerKV:
    layer_id: int
    k: torch.Tensor
    v: torch.Tensor
    k_scale: torch.Tensor


class AiterNoFp8Backend:
    def __init__(self, model_runner):
        self.pool = model_runner.token_to_kv_pool
        self.dtype = model_runner.dtype

    def _record(self, layer_id):
        k, v = self.pool.get_kv_buffer(layer_id)
        return LayerKV(layer_id, k, v, self.pool.k_scale)

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        rec = self._record(layer.layer_id)
        wide = dataclasses.replace(rec, k=rec.k.to(self.dtype), v=rec.v.to(self.dtype))  # positive: f3 CL001 both whole planes converted into a replaced record
        scaled = dataclasses.replace(rec, k_scale=rec.k_scale.float())  # negative: only the scale field is converted
        part = rec.v[forward_batch.out_cache_loc].to(self.dtype)  # negative: rows selected before the cast
        return wide, scaled, part
