from abc import ABC, abstractmethod

import torch


class LatentImplBase(ABC):
    def forward(self, layer, q, k_c_normed, k_pe, kv_cache, attn_metadata, output=None):
        prepared = self.prepare(kv_cache, attn_metadata)
        return self._attend(q, prepared)

    @abstractmethod
    def prepare(self, kv_cache, attn_metadata): ...

    def _attend(self, q, cache):
        return q


class UpcastLatentImpl(LatentImplBase):
    def prepare(self, kv_cache, attn_metadata):
        return kv_cache.to(torch.bfloat16)  # positive: f2 CL001 abstract hook given kv_cache by the base forward


class PrefixLatentImpl(LatentImplBase):
    def prepare(self, kv_cache, attn_metadata):
        return kv_cache[attn_metadata.block_table].to(torch.bfloat16)  # negative: gathered blocks


class FlatLatentImpl(UpcastLatentImpl):
    def prepare(self, kv_cache, attn_metadata):
        flat = kv_cache.flatten(0, 1)
        return flat.half()  # positive: f2 CL001 grandchild flattens the whole cache and converts
