import torch


class _Ctx:
    def __init__(self, runner):
        self.runner = runner

    def pool_ref(self):
        return self.runner.token_to_kv_pool


class ChainBackend:
    def __init__(self, model_runner):
        self.ctx = _Ctx(model_runner)
        self.dtype = model_runner.dtype

    def forward_extend(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        kv_pair = self.ctx.pool_ref().get_kv_buffer(layer.layer_id)
        k_all = kv_pair[0].to(self.dtype)  # positive: f1 CL001 key half of get_kv_buffer through ctx.pool_ref()
        v_all = self.ctx.runner.token_to_kv_pool.get_value_buffer(layer.layer_id).to(self.dtype)  # positive: f1 CL001 long attribute chain to the pool
        return k_all, v_all

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        pool = forward_batch.token_to_kv_pool
        loc = forward_batch.out_cache_loc
        k_new = k.to(self.dtype)  # negative: batch k
        pool.set_kv_buffer(layer, loc, k_new, v.to(self.dtype))  # negative: writer of batch values
        return q
