import torch


class LambdaCastBackend:
    def __init__(self, model_runner):
        self.upcast = lambda t: t.to(torch.bfloat16)  # note: lambda cast, labelled at its calls
        self.pool = model_runner.token_to_kv_pool

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        kc = self.upcast(self.pool.get_key_buffer(layer.layer_id))  # positive: f4 CL001 lambda cast given the whole key pool
        qc = self.upcast(q)  # negative: batch q
        fetch = lambda lid: self.pool.get_value_buffer(lid)
        vc = fetch(layer.layer_id).to(q.dtype)  # positive: f4 CL001 lambda returning the whole value pool
        return kc, qc, vc
