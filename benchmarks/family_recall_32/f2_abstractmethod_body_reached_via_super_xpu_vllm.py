"""vLLM Intel XPU: an abstract method with a body, reached through super() by the MLA impl."""
import abc

import torch


class XPUImplBase(abc.ABC):
    def __init__(self, model_dtype):
        self.model_dtype = model_dtype

    @abc.abstractmethod
    def kernel_cache(self, kv_cache, attn_metadata):
        key_cache, value_cache = kv_cache.unbind(0)
        return key_cache.to(self.model_dtype), value_cache.to(self.model_dtype)  # positive: f2 CL001 both whole planes (one line)

    def forward(self, layer, query, key, value, kv_cache, attn_metadata, output=None):
        k_cache, v_cache = self.kernel_cache(kv_cache, attn_metadata)
        return self._ipex_paged(query.to(self.model_dtype), k_cache, v_cache, attn_metadata)  # negative: query

    def _ipex_paged(self, q, k, v, m):
        return q, k, v


class XPUMLAImpl(XPUImplBase):
    def kernel_cache(self, kv_cache, attn_metadata):
        if attn_metadata.num_decodes:
            return super().kernel_cache(kv_cache, attn_metadata)
        blocks = attn_metadata.block_table[:, :1]
        return kv_cache[0][blocks].to(self.model_dtype), None  # negative: first-block gather


class XPUPagedImpl(XPUImplBase):
    def kernel_cache(self, kv_cache, attn_metadata):
        return kv_cache.unbind(0)
