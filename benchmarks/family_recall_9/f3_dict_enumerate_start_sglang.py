"""`dict(enumerate(pool.k_buffer, start=pool.start_layer))` keyed by global layer id."""
import torch


class EnumDictBackend:
    def __init__(self, model_runner):
        pool = model_runner.token_to_kv_pool
        self.k_by_id = dict(enumerate(pool.k_buffer, start=pool.start_layer))
        self.v_by_id = dict(enumerate(pool.v_buffer, pool.start_layer))
        self.lens_by_id = dict(enumerate(torch.zeros(8, 4, dtype=torch.int32)))

    def forward_extend(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        kd = self.k_by_id[layer.layer_id].to(q.dtype)  # positive: f3 CL001 K layer from a dict built with enumerate(start=)
        vd = self.v_by_id.get(layer.layer_id).bfloat16()  # positive: f3 CL001 V layer from dict.get
        ln = self.lens_by_id[0].to(torch.int64)  # negative: a row of a small counter table
        kr = self.k_by_id[layer.layer_id][forward_batch.out_cache_loc].to(q.dtype)  # negative: gathered rows
        return q, kd, vd, ln, kr
