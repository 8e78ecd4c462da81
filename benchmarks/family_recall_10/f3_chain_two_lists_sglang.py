"""K and V lists joined with itertools.chain (not from_iterable) and indexed after list()."""
import itertools

import torch


class ChainBackend:
    def __init__(self, pool):
        self.pool = pool
        self.num_layers = len(pool.k_buffer)

    def forward_extend(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        both = list(itertools.chain(self.pool.k_buffer, self.pool.v_buffer))
        kb = both[layer.layer_id]
        vb = both[self.num_layers + layer.layer_id]
        k_up = kb.to(q.dtype)  # positive: f3 CL001 K plane from a chained list
        v_up = vb.to(q.dtype)  # positive: f3 CL001 V plane from a chained list
        small = list(itertools.chain([k], [v]))
        kv_new = small[0].to(kb.dtype)  # negative: this step's keys
        return k_up, v_up, kv_new
