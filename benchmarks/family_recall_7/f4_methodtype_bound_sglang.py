"""f4: module functions bound to the backend with types.MethodType and called as methods."""
import types

import torch


def _latent_of(self, layer_id):
    return self.token_to_kv_pool.get_key_buffer(layer_id)


def _rows_of(self, layer_id, loc):
    return self.token_to_kv_pool.get_key_buffer(layer_id)[loc]


class BoundBackend:
    def __init__(self, model_runner):
        self.token_to_kv_pool = model_runner.token_to_kv_pool
        self.kv_lora_rank = model_runner.model_config.kv_lora_rank
        self.latent_of = types.MethodType(_latent_of, self)
        self.rows_of = types.MethodType(_rows_of, self)

    def forward_decode(self, q, k, v, layer, forward_batch, q_rope=None, k_rope=None):
        lat = self.latent_of(layer.layer_id).to(q.dtype)  # positive: f4 CL001 MethodType-bound accessor
        rows = self.rows_of(layer.layer_id, forward_batch.out_cache_loc).to(q.dtype)  # negative: gathered rows
        return lat, rows

    def forward_extend(self, q, k, v, layer, forward_batch, q_rope=None, k_rope=None):
        fn = types.MethodType(_latent_of, self)
        nope = fn(layer.layer_id)[..., : self.kv_lora_rank].float()  # positive: f4 CL001 latent part via a freshly bound function
        k_cast = k.to(q.dtype)  # negative: the batch's new keys
        return nope, k_cast
