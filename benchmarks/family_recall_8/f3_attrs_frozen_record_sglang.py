import attrs
import torch


@attrs.frozen
class KVPlanes:
    k: torch.Tensor
    v: torch.Tensor
    layer: int = 0


class AttrsBackend:
    def __init__(self, model_runner):
        self.pool = model_runner.token_to_kv_pool

    def _planes(self, layer_id):
        k, v = self.pool.get_kv_buffer(layer_id)
        return KVPlanes(k=k, v=v, layer=layer_id)

    def forward_extend(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        rec = self._planes(layer.layer_id)
        kk, vv, _ = attrs.astuple(rec, recurse=False)
        kd = kk.to(q.dtype)  # positive: f3 CL001 attrs.astuple of a record of whole planes
        vd = attrs.asdict(rec, recurse=False)["v"].half()  # positive: f3 CL001 attrs.asdict field
        ev = attrs.evolve(rec, k=rec.k[forward_batch.out_cache_loc])
        rows = ev.k.to(q.dtype)  # negative: evolved record holds gathered rows
        return kd, vd, rows
