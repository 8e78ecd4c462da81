"""Lambdas, map() and dispatch tables over pool buffers."""
import torch

from sglang.srt.layers.attention.base_attn_backend import AttentionBackend


class LambdaBackend(AttentionBackend):
    def __init__(self, model_runner):
        super().__init__()
        pool = model_runner.token_to_kv_pool
        self.pool = pool
        self.read = {"k": pool.get_key_buffer, "v": pool.get_value_buffer}
        self.key_of = lambda lid: pool.get_key_buffer(lid)
        self.caster = lambda t: t.to(model_runner.dtype)

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        k_cache = self.read["k"](layer.layer_id).to(q.dtype)  # positive: f4 CL001 dispatch-table accessor
        v_cache = self.key_of(layer.layer_id).half()  # positive: f4 CL001 lambda accessor
        v2 = self.caster(self.pool.get_value_buffer(layer.layer_id))  # positive: f4 CL001 lambda cast of the pool
        return k_cache, v_cache, v2

    def all_layers(self):
        ks = list(map(torch.Tensor.float, self.pool.k_buffer))  # positive: f4 CL001 map of Tensor.float over all layers
        vs = list(map(lambda t: t.bfloat16(), self.pool.v_buffer))  # positive: f4 CL001 map of lambda cast over all layers
        return ks, vs

    def forward_extend(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        loc = forward_batch.out_cache_loc
        rows = self.caster(self.read["v"](layer.layer_id)[loc])  # negative: gather before lambda cast
        shapes = list(map(lambda t: t.shape, self.pool.k_buffer))  # negative: shapes only
        return rows, shapes
