import functools

import torch


class PartialAccessorBackend:
    def __init__(self, model_runner):
        self.pool = model_runner.token_to_kv_pool

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        read = functools.partial(self.pool.get_kv_buffer, layer.layer_id)
        kb, vb = read()
        kb = kb.to(q.dtype)  # positive: f4 CL001 key buffer through partial(get_kv_buffer, layer_id)
        read_k = functools.partial(self.pool.get_key_buffer)
        kb2 = read_k(layer.layer_id).half()  # positive: f4 CL001 partial of get_key_buffer then called
        return kb, vb, kb2
