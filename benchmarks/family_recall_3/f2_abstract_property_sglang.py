import abc

import torch


class LayerCacheAttention(abc.ABC):
    def __init__(self, layer_id: int, pool):
        self.layer_id = layer_id
        self.pool = pool

    @property
    @abc.abstractmethod
    def key_cache(self) -> torch.Tensor:
        ...

    def forward(self, q, forward_batch):
        kc = self.key_cache.to(q.dtype)  # positive: f2 CL001 abstract property implemented by subclasses as the whole key pool
        return q @ kc.flatten(1).T


class MLALayerCacheAttention(LayerCacheAttention):
    @property
    def key_cache(self) -> torch.Tensor:
        return self.pool.get_key_buffer(self.layer_id)


class MHALayerCacheAttention(LayerCacheAttention):
    @property
    def key_cache(self) -> torch.Tensor:
        return self.pool.get_kv_buffer(self.layer_id)[0]

    def forward(self, q, forward_batch):
        kc = super().key_cache
        kc = kc.bfloat16()  # positive: f2 CL001 super() property of the whole key pool
        return kc
