import torch


class DecodeCacheView:
    def __init__(self, key, value):
        self.key = key
        self.value = value

    @classmethod
    def from_cache(cls, kv_cache, dtype):
        return cls(kv_cache[0], kv_cache[1])


class WideDecodeCacheView(DecodeCacheView):
    @classmethod
    def from_cache(cls, kv_cache, dtype):
        return cls(kv_cache[0].to(dtype), kv_cache[1].to(dtype))  # positive: f2 CL001 subclass alternate constructor widens whole planes


class XFormersImpl:
    view_cls = DecodeCacheView

    def forward(self, layer, query, key, value, kv_cache, attn_metadata, output=None):
        view = self.view_cls.from_cache(kv_cache, query.dtype)
        return view


class XFormersNoFp8Impl(XFormersImpl):
    view_cls = WideDecodeCacheView
