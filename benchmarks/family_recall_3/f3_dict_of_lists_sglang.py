import torch


class DictArenaBackend:
    def __init__(self, model_runner):
        pool = model_runner.token_to_kv_pool
        self.caches = {"k": list(pool.k_buffer), "v": list(pool.v_buffer)}
        self.scales = {"k": [torch.ones(1) for _ in pool.k_buffer]}
        self.start_layer = pool.start_layer

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        i = layer.layer_id - self.start_layer
        kc = self.caches["k"][i].to(q.dtype)  # positive: f3 CL001 dict of per-layer k buffers
        vc = self.caches["v"][i]
        vc = vc.bfloat16()  # positive: f3 CL001 dict of per-layer v buffers
        ks = self.scales["k"][i].to(q.dtype)  # negative: scale list
        return kc, vc, ks

    def forward_extend(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        i = layer.layer_id - self.start_layer
        loc = forward_batch.out_cache_loc
        rows = self.caches["k"][i][loc].to(q.dtype)  # negative: gathered
        early = self.caches["v"][i].to(q.dtype)[loc]  # positive: f3 CL003 dict entry cast before the gather
        return rows, early
