from typing import Protocol

import torch


class KVSource(Protocol):
    def key(self, layer_id: int) -> torch.Tensor: ...

    def value(self, layer_id: int) -> torch.Tensor: ...


class PoolSource:
    def __init__(self, pool):
        self.pool = pool

    def key(self, layer_id):
        return self.pool.get_key_buffer(layer_id)

    def value(self, layer_id):
        return self.pool.get_value_buffer(layer_id)


class TorchNativeXPUBase:
    source: KVSource

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        keys = self._keys(layer)
        values = self.source.value(layer.layer_id)[forward_batch.out_cache_loc].to(q.dtype)  # negative: rows of the batch
        return self._sdpa_decode(q, keys, values, layer, forward_batch)

    def _keys(self, layer):
        return self.source.key(layer.layer_id)


class XPUNoFP8Backend(TorchNativeXPUBase):
    def __init__(self, model_runner):
        self.source = PoolSource(model_runner.token_to_kv_pool)

    def _keys(self, layer):
        return super()._keys(layer).to(torch.bfloat16)  # positive: f2 CL001 whole key layer from the base's source
