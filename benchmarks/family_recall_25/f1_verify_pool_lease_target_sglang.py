import torch


class VerifyContext:
    def __init__(self, model_runner):
        self.kv_pool = model_runner.token_to_kv_pool
        self.compute_dtype = model_runner.dtype

    def latent(self, layer):
        return self.kv_pool.get_key_buffer(layer.layer_id)


class TargetVerifyBackend:
    def __init__(self, model_runner):
        self.ctx = VerifyContext(model_runner)

    def forward_extend(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        if forward_batch.forward_mode.is_target_verify():
            latent = self.ctx.latent(layer)
            kv = latent.to(self.ctx.compute_dtype)  # positive: f1 CL001 pool latent through the verify context, whole
        else:
            kv = k.to(self.ctx.compute_dtype)  # negative: new tokens of the batch
        q = q.to(self.ctx.compute_dtype)  # negative: query
        same = self.ctx.latent(layer).to(self.ctx.kv_pool.dtype)  # negative: same dtype as the pool
        return q, kv, same
