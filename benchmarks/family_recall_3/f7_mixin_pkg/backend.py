import torch

from .mixins import MLAPoolMixin, PlanMixin


class MixinMLABackend(MLAPoolMixin, PlanMixin):
    def __init__(self, model_runner, wrapper):
        self.wrapper = wrapper
        self.dtype = model_runner.dtype
        self.kv_cache_dtype = model_runner.kv_cache_dtype

    def init_forward_metadata(self, forward_batch):
        self._plan_decode(self.wrapper, forward_batch.plan_inputs, self.dtype, self.dtype)  # positive: f7 CL002 mixin plan helper called with kv in model dtype

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        kb = self._latent_upcast(forward_batch, layer, q.dtype)
        kraw = self._latent(forward_batch, layer)
        k2 = kraw.to(q.dtype)  # positive: f7 CL001 mixin accessor from mixins.py
        return kb, k2

    def init_forward_metadata_native(self, forward_batch):
        self._plan_decode(self.wrapper, forward_batch.plan_inputs, self.dtype, self.kv_cache_dtype)  # negative: kv declared in the pool dtype
