import torch

from .utils import cast_like, to_compute


class GenericHelperBackend:
    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        pool = forward_batch.token_to_kv_pool
        kb = cast_like(pool.get_key_buffer(layer.layer_id), q)  # positive: f7 CL001 sibling-module helper given the whole key pool
        qq = cast_like(q, kb)  # negative: batch q
        vb = to_compute(pool.get_value_buffer(layer.layer_id))  # positive: f7 CL001 sibling-module helper given the whole value pool
        kk = to_compute(k)  # negative: batch k
        return kb, qq, vb, kk
