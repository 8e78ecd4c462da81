"""A helper started as threading.Thread(target=..., args=(k_cache, out)) writes converted caches."""
import threading

import torch


class ThreadedUpcastAttention:
    def __init__(self, layer_idx):
        self.layer_idx = layer_idx

    @staticmethod
    def _convert_into(cache, out, dtype):
        out.append(cache.to(dtype))  # positive: f4 CL001 thread target only given whole caches

    def forward(self, query, key, value, k_cache, v_cache, attn_metadata,
                k_scales_zeros=None, v_scales_zeros=None):
        out = []
        workers = [threading.Thread(target=self._convert_into, args=(c, out, query.dtype))
                   for c in (k_cache, v_cache)]
        for w in workers:
            w.start()
        for w in workers:
            w.join()
        sz = k_scales_zeros.to(query.dtype) if k_scales_zeros is not None else None  # negative: scales/zeros
        return out, sz
