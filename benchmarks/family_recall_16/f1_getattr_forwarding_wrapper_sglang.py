import torch


class TracedPool:
    """Wraps the token pool and forwards every other attribute to it."""

    def __init__(self, inner):
        self._inner = inner
        self.reads = 0

    def __getattr__(self, name):
        return getattr(self._inner, name)

    def get_value_buffer(self, layer_id):
        self.reads += 1
        return self._inner.get_value_buffer(layer_id)


class TritonFallbackBackend:
    def __init__(self, model_runner):
        self.pool = TracedPool(model_runner.token_to_kv_pool)
        self.scratch = torch.empty(8, 128, dtype=torch.bfloat16)

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        if save_kv_cache:
            self.pool.set_kv_buffer(layer, forward_batch.out_cache_loc, k, v)
        key = self.pool.get_key_buffer(layer.layer_id).to(torch.bfloat16)  # positive: f1 CL001 reached through __getattr__ forwarding
        value = self.pool.get_value_buffer(layer.layer_id).to(torch.bfloat16)  # positive: f1 CL001 through the overriding method
        scratch = self.scratch.to(q.dtype)  # negative: small per-backend scratch, not the pool
        return key, value, scratch
