"""sglang: a template forward_decode passes the pool's layers to an abstract _attend; the XPU
subclass has no FP8 kernel and widens the buffers it is handed."""
from abc import ABC, abstractmethod

import torch


class PagedDecodeTemplate(ABC):
    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        pool = forward_batch.token_to_kv_pool
        if save_kv_cache:
            pool.set_kv_buffer(layer, forward_batch.out_cache_loc, k, v)
        return self._attend(q, pool.get_key_buffer(layer.layer_id), pool.get_value_buffer(layer.layer_id), layer)

    @abstractmethod
    def _attend(self, q, k_buf, v_buf, layer): ...


class CudaPagedDecode(PagedDecodeTemplate):
    def _attend(self, q, k_buf, v_buf, layer):
        return self.kernel(q, k_buf, v_buf, k_scale=layer.k_scale)


class XPUPagedDecode(PagedDecodeTemplate):
    def _attend(self, q, k_buf, v_buf, layer):
        scale = layer.k_scale.to(q.dtype) if layer.k_scale is not None else None  # negative: a scale
        k_dense = k_buf.to(q.dtype)  # positive: f2 CL001 whole key layer handed in by the template
        v_dense = v_buf.to(q.dtype)  # positive: f2 CL001 whole value layer handed in by the template
        return self.sdpa(q, k_dense, v_dense, scale)
