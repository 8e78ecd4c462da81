import torch


class KVAccess:
    @classmethod
    def from_pool(cls, pool, layer_id):
        return pool.get_key_buffer(layer_id)

    @staticmethod
    def pair(pool, layer_id):
        return pool.get_kv_buffer(layer_id)

    @staticmethod
    def upcast(t: torch.Tensor, dtype) -> torch.Tensor:
        return t.to(dtype)  # note: generic, labelled where a caller passes a pool


class StaticBackend:
    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        pool = forward_batch.token_to_kv_pool
        kc = KVAccess.from_pool(pool, layer.layer_id).to(q.dtype)  # positive: f2 CL001 classmethod returns whole pool
        kv = self._pair(pool, layer.layer_id)
        vc = kv[1].float()  # positive: f2 CL001 staticmethod via self returns (k, v) of the whole pool
        qc = KVAccess.upcast(q, torch.float32)  # negative: batch q through the generic helper
        whole = KVAccess.upcast(pool.get_value_buffer(layer.layer_id), q.dtype)  # positive: f2 CL001 staticmethod cast given the whole pool
        return kc, vc, qc, whole

    _pair = staticmethod(KVAccess.pair)
