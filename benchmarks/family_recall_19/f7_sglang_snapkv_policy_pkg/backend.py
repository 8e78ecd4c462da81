import torch

from . import scoring


class EvictingTritonBackend:
    def __init__(self, model_runner, window=32):
        self.pool = model_runner.token_to_kv_pool
        self.window = window

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        k_buf = self.pool.get_key_buffer(layer.layer_id)
        s_all = scoring.score_layer(k_buf, q)
        s_live = scoring.score_rows(k_buf, forward_batch.out_cache_loc, q)
        return s_all, s_live
