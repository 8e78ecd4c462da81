import torch


class AiterMLABase:
    def __init__(self, model_runner):
        self.token_to_kv_pool = model_runner.token_to_kv_pool

    def _latent_for(self, layer, q):
        return self.token_to_kv_pool.get_key_buffer(layer.layer_id)

    def forward_extend(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        lat = self._latent_for(layer, q)
        return q, lat

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        return self.forward_extend(q, k, v, layer, forward_batch, save_kv_cache)


class AiterFP8UpcastBackend(AiterMLABase):
    def _latent_for(self, layer, q):
        raw = super()._latent_for(layer, q)
        return raw.to(q.dtype)  # positive: f2 CL001 overriding hook upcasts the whole latent layer


class AiterNativeBackend(AiterMLABase):
    def _latent_for(self, layer, q):
        raw = super()._latent_for(layer, q)
        return raw.view(torch.float8_e4m3fnuz)  # negative: reinterpret, no conversion
