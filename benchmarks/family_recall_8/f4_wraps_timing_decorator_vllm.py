import functools
import time

import torch


def timed(fn):
    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        t0 = time.perf_counter()
        out = fn(*args, **kwargs)
        wrapper.elapsed = time.perf_counter() - t0
        return out
    return wrapper


@timed
def densify(cache):
    return cache.half()  # positive: f4 CL001 wrapped helper, every caller passes kv_cache


@timed
def cast_query(q):
    return q.float()  # negative: batch query


class TimedImpl:
    def forward(self, layer, query, key, value, kv_cache, attn_metadata, output=None):
        dense = densify(kv_cache)
        qq = cast_query(query)
        return dense, qq
