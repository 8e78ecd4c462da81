"""Accessor names held by an Enum (str mixin), used with getattr; enum members carry the dtype."""
import enum

import torch


class CacheSide(str, enum.Enum):
    KEY = "key_cache"
    VALUE = "value_cache"


class Precision(enum.Enum):
    HALF = torch.float16
    BF16 = torch.bfloat16


class CacheEngineLite:
    def __init__(self, num_layers, num_blocks, block_size, heads, dim):
        self._k = [torch.empty(num_blocks, block_size, heads, dim, dtype=torch.int8) for _ in range(num_layers)]
        self._v = [torch.empty(num_blocks, block_size, heads, dim, dtype=torch.int8) for _ in range(num_layers)]

    def key_cache(self, layer_idx):
        return self._k[layer_idx]

    def value_cache(self, layer_idx):
        return self._v[layer_idx]


class EnumDispatchAttention(torch.nn.Module):
    def __init__(self, engine, layer_idx, precision=Precision.HALF):
        super().__init__()
        self.engine = engine
        self.layer_idx = layer_idx
        self.precision = precision

    def forward(self, query, attn_metadata):
        k = getattr(self.engine, CacheSide.KEY.value)(self.layer_idx).to(self.precision.value)  # positive: f4 CL001 whole key cache via an enum-named accessor
        getter = getattr(self.engine, CacheSide.VALUE)
        v = getter(self.layer_idx).to(Precision.BF16.value)  # positive: f4 CL001 whole value cache; the str enum member is the name
        blk = getter(self.layer_idx)[attn_metadata.block_offsets].to(self.precision.value)  # negative: gather-then-cast
        fill = attn_metadata.fill_seqlens.to(torch.int32)  # negative: lengths
        own = getter(self.layer_idx).to(torch.int8)  # negative: own dtype
        return k, v, blk, fill
