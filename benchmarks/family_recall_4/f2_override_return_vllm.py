"""One subclass overrides the view to gather, another keeps the whole plane, a third inherits."""
import torch


class CacheLayoutBase:
    def _key_view(self, kv_cache, attn_metadata):
        return kv_cache[0]

    def _value_view(self, kv_cache, attn_metadata):
        return kv_cache[1]


class PagedRowsImpl(CacheLayoutBase):
    def _key_view(self, kv_cache, attn_metadata):
        return kv_cache[0][attn_metadata.block_table[0]]

    def forward(self, layer, query, key, value, kv_cache, attn_metadata, output=None):
        kc = self._key_view(kv_cache, attn_metadata).to(query.dtype)  # negative: the override gathers one sequence's blocks
        vc = self._value_view(kv_cache, attn_metadata).to(query.dtype)  # positive: f2 CL001 inherited view is the whole value plane
        return kc, vc


class FlatImpl(CacheLayoutBase):
    def _key_view(self, kv_cache, attn_metadata):
        return super()._key_view(kv_cache, attn_metadata).flatten(0, 1)

    def forward(self, layer, query, key, value, kv_cache, attn_metadata, output=None):
        kc = self._key_view(kv_cache, attn_metadata).bfloat16()  # positive: f2 CL001 override keeps every block (super then flatten)
        vc = torch.Tensor.to(self._value_view(kv_cache, attn_metadata), dtype=torch.bfloat16)  # positive: f2 CL001 unbound Tensor.to on the inherited value plane
        qb = query.bfloat16()  # negative: batch query
        return kc, vc, qb


class InheritingImpl(FlatImpl):
    def forward(self, layer, query, key, value, kv_cache, attn_metadata, output=None):
        if attn_metadata.num_prefills > 0:
            return super().forward(layer, query, key, value, kv_cache, attn_metadata, output)
        kc = self._key_view(kv_cache, attn_metadata)
        slots = attn_metadata.slot_mapping.to(torch.int64)  # negative: slot mapping
        return kc.half(), slots  # positive: f2 CL001 FlatImpl's override inherited, whole key plane
