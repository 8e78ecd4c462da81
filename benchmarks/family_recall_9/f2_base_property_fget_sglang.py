"""A base property's getter called explicitly (`Base.prop.fget(obj)`, `__get__`) past an override."""
import torch


class LayerViews:
    def __init__(self, pool, layer_id):
        self.pool = pool
        self.layer_id = layer_id

    @property
    def latent(self):
        return self.pool.get_key_buffer(self.layer_id)[..., :512]


class StepViews(LayerViews):
    def __init__(self, pool, layer_id, loc):
        super().__init__(pool, layer_id)
        self.loc = loc

    @property
    def latent(self):
        return super().latent[self.loc]


class FgetBackend:
    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        views = StepViews(forward_batch.token_to_kv_pool, layer.layer_id, forward_batch.out_cache_loc)
        whole = LayerViews.latent.fget(views).to(q.dtype)  # positive: f2 CL001 base getter called explicitly: every token's latent
        again = LayerViews.latent.__get__(views).half()  # positive: f2 CL001 base property via __get__
        step = views.latent.to(q.dtype)  # negative: the override gathers this step's rows
        return whole, again, step
