import torch


class LayerKVView:
    """Per-layer view over the token pool, exposed through properties."""

    def __init__(self, pool, layer_id: int):
        self._pool = pool
        self._layer_id = layer_id

    @property
    def key_cache(self) -> torch.Tensor:
        return self._pool.get_key_buffer(self._layer_id)

    @property
    def value_cache(self) -> torch.Tensor:
        return self._pool.get_value_buffer(self._layer_id)

    @property
    def k_scale(self) -> torch.Tensor:
        return self._pool.k_scale[self._layer_id]


class PropertyBackend:
    def __init__(self, model_runner):
        self.pool = model_runner.token_to_kv_pool
        self.views = {}

    def _view(self, layer) -> LayerKVView:
        if layer.layer_id not in self.views:
            self.views[layer.layer_id] = LayerKVView(self.pool, layer.layer_id)
        return self.views[layer.layer_id]

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        view = self._view(layer)
        kc = view.key_cache.to(torch.bfloat16)  # positive: f1 CL001 property returns whole key pool
        vc = view.value_cache
        vc = vc.to(dtype=q.dtype)  # positive: f1 CL001 property returns whole value pool
        s = view.k_scale.float()  # negative: scale tensor
        return kc, vc, s
