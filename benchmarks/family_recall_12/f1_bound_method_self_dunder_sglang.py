import torch


class SelfRefBackend:
    def __init__(self, model_runner):
        pool = model_runner.token_to_kv_pool
        self.read_k = pool.get_key_buffer
        self.small = torch.zeros(8, dtype=torch.float8_e4m3fn)
        self.compute_dtype = model_runner.dtype

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        owner = self.read_k.__self__
        vbuf = owner.get_value_buffer(layer.layer_id).half()  # positive: f1 CL001 pool recovered from a bound accessor's __self__
        kbuf = self.read_k(layer.layer_id)
        kb = kbuf.to(self.compute_dtype)  # positive: f1 CL001 bound accessor called per step
        tiny = self.small.to(self.compute_dtype)  # negative: an 8-element scratch tensor
        return kb, vbuf, tiny

    def forward_extend(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        owner = self.read_k.__self__
        rows = owner.get_key_buffer(layer.layer_id)[forward_batch.out_cache_loc]
        return rows.to(self.compute_dtype)  # negative: gathered rows
