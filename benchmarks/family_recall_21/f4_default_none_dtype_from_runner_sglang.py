import torch


class DenseReader:
    def __init__(self, model_runner):
        self.pool = model_runner.token_to_kv_pool
        self.model_dtype = model_runner.dtype

    def latent(self, layer_id, *, dtype=None, loc=None):
        buf = self.pool.get_key_buffer(layer_id)
        if loc is not None:
            buf = buf[loc]
        return buf.to(dtype or self.model_dtype)  # positive: f4 CL001 whole buffer when loc is None (forward_decode)


class CutlassMLAFallbackBackend:
    def __init__(self, model_runner):
        self.reader = DenseReader(model_runner)

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        return self.reader.latent(layer.layer_id)

    def forward_extend(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        return self.reader.latent(layer.layer_id, loc=forward_batch.out_cache_loc, dtype=q.dtype)  # negative: rows selected inside the helper first
