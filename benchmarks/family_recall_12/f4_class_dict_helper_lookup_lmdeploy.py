import torch


class DictLookupImpl:
    def __init__(self, num_heads, head_size):
        self.num_heads = num_heads
        self.head_size = head_size

    def _dense(self, cache, dtype):
        return cache.to(dtype)  # positive: f4 CL001 helper reached through the class __dict__, only ever given k_cache/v_cache

    def _scales(self, sz, dtype):
        return sz.to(dtype)  # negative: scales/zeros helper

    def forward(self, query, key, value, k_cache, v_cache, attn_metadata,
                k_scales_zeros=None, v_scales_zeros=None, inplace=True):
        helper = type(self).__dict__["_dense"]
        k = helper(self, k_cache, query.dtype)
        v = self.__class__.__dict__["_dense"](self, v_cache, query.dtype)
        ks = type(self).__dict__["_scales"](self, k_scales_zeros, query.dtype)
        new_k = key.to(query.dtype)  # negative: the step's keys
        return k, v, ks, new_k
