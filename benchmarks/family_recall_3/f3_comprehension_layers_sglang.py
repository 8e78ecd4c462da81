import torch


class ComprehensionBackend:
    def __init__(self, model_runner):
        pool = model_runner.token_to_kv_pool
        self.layers = {i: pool.get_kv_buffer(i) for i in range(pool.start_layer, pool.end_layer)}
        self.k_only = [pool.get_key_buffer(i) for i in range(pool.start_layer, pool.end_layer)]
        self.start = pool.start_layer
        self.offsets = [torch.zeros(1, dtype=torch.int64) for _ in self.k_only]

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        kb = self.layers[layer.layer_id][0].to(q.dtype)  # positive: f3 CL001 dict comprehension of get_kv_buffer
        kk = self.k_only[layer.layer_id - self.start].to(q.dtype)  # positive: f3 CL001 list comprehension of get_key_buffer
        off = self.offsets[layer.layer_id - self.start].to(torch.int32)  # negative: offsets
        return kb, kk, off
