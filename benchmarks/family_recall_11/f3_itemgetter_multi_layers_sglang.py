import operator

import torch


class LayerSubsetBackend:
    """Keeps FP8 on most layers; the dense layers listed in the config are upcast."""

    def __init__(self, model_runner, dense_layers=(0, 1, 2)):
        self.pick_dense = operator.itemgetter(*dense_layers)
        self.dtype = model_runner.dtype
        self.dense_ids = set(dense_layers)

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        pool = forward_batch.token_to_kv_pool
        if layer.layer_id not in self.dense_ids:
            return pool.get_key_buffer(layer.layer_id)
        chosen = self.pick_dense(pool.kv_buffer)
        pos = sorted(self.dense_ids).index(layer.layer_id)
        kv = chosen[pos].to(self.dtype)  # positive: f3 CL001 one of the whole layer buffers picked by a multi-item itemgetter
        locs = self.pick_dense(forward_batch.out_cache_loc)
        return kv, locs

    def forward_extend(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        first, second, third = self.pick_dense(forward_batch.token_to_kv_pool.kv_buffer)
        a = first.to(q.dtype)  # positive: f3 CL001 whole buffer unpacked from the itemgetter tuple
        b = second[forward_batch.out_cache_loc].to(q.dtype)  # negative: gathered rows
        return a, b
