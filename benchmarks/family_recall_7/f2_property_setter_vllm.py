"""f2: a base class stores the cache through a property setter; subclasses read the property."""
import torch


class CacheSlotBase:
    def __init__(self):
        self._cache = None

    @property
    def cache(self):
        return self._cache

    @cache.setter
    def cache(self, value):
        self._cache = value


class SetterImpl(CacheSlotBase):
    def __init__(self, num_heads, head_size, num_kv_heads):
        super().__init__()
        self.num_heads = num_heads
        self.head_size = head_size
        self.num_kv_heads = num_kv_heads

    def forward(self, layer, query, key, value, kv_cache, attn_metadata, output=None):
        self.cache = kv_cache
        key_cache = self.cache[0].to(query.dtype)  # positive: f2 CL001 K of every block through the property
        self.cache = kv_cache[:, attn_metadata.block_table[:, 0]]
        first_blocks = self.cache.to(query.dtype)  # negative: the setter got gathered blocks
        return key_cache, first_blocks


class FP8SetterImpl(SetterImpl):
    def forward(self, layer, query, key, value, kv_cache, attn_metadata, output=None):
        out = super().forward(layer, query, key, value, kv_cache, attn_metadata, output)
        self.cache = kv_cache
        value_cache = self.cache.unbind(0)[1].half()  # positive: f2 CL001 V of every block
        scale = layer._k_scale.to(torch.float32)  # negative: a scale
        return out, value_cache, scale
