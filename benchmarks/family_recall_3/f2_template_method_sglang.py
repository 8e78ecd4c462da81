"""Abstract template: forward_decode is in the base, the pool read is a hook."""
import abc

import torch


class TemplateBackend(abc.ABC):
    def __init__(self, model_runner):
        self.compute_dtype = model_runner.dtype

    @abc.abstractmethod
    def fetch_kv(self, layer, forward_batch) -> torch.Tensor:
        ...

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        kv = self.fetch_kv(layer, forward_batch)
        kv = kv.to(self.compute_dtype)  # positive: f2 CL001 every fetch_kv implementation returns a whole pool
        return self._attend(q, kv)

    def _attend(self, q, kv):
        return q @ kv[..., : q.shape[-1]].transpose(0, 1)


class MLATemplateBackend(TemplateBackend):
    def fetch_kv(self, layer, forward_batch):
        return forward_batch.token_to_kv_pool.get_key_buffer(layer.layer_id)


class MHATemplateBackend(TemplateBackend):
    def fetch_kv(self, layer, forward_batch):
        k, _ = forward_batch.token_to_kv_pool.get_kv_buffer(layer.layer_id)
        return k
