from typing import NamedTuple

import torch


class KVPlanes(NamedTuple):
    k: torch.Tensor
    v: torch.Tensor


class NamedTupleImpl:
    def forward(self, layer, query, key, value, kv_cache, attn_metadata, output=None):
        planes = KVPlanes(kv_cache[0], kv_cache[1])
        k_half = planes.k.half()  # positive: f3 CL001 NamedTuple field is the whole key plane
        planes = planes._replace(v=planes.v.to(query.dtype))  # positive: f3 CL001 NamedTuple field is the whole value plane
        key = key.to(planes.k.dtype)  # negative: batch key to the cache dtype
        return k_half, planes, key

    def forward_unpacked(self, layer, query, key, value, kv_cache, attn_metadata):
        kp, vp = KVPlanes(*kv_cache.unbind(0))
        return kp.to(query.dtype), vp  # positive: f3 CL001 unpacked NamedTuple of the whole cache
