import torch

from .decorators import traced


@traced("dense_cache")
def dense_cache(kv_cache, dtype):
    return kv_cache.to(dtype)  # positive: f7 CL001 decorated helper in helpers.py, only given kv_cache by impl.py


@traced("dense_query")
def dense_query(query):
    return query.to(torch.float32)  # negative: batch query
