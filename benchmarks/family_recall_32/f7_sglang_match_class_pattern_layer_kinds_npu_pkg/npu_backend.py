import torch

from . import to_kernel
from .kinds import DenseLayer, PagedLayer


class AscendMLAFallbackBackend:
    def __init__(self, model_runner):
        self.model_dtype = model_runner.dtype

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        pool = forward_batch.token_to_kv_pool
        kv = to_kernel(DenseLayer(pool.get_key_buffer(layer.layer_id)), q.dtype)
        return self._npu_mla(q, kv, layer)

    def forward_extend(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        pool = forward_batch.token_to_kv_pool
        kv = to_kernel(PagedLayer(pool.get_key_buffer(layer.layer_id), forward_batch.out_cache_loc), q.dtype)
        return self._npu_mla(q.to("npu"), kv, layer)  # negative: query device move

    def _npu_mla(self, q, kv, layer):
        return q, kv
