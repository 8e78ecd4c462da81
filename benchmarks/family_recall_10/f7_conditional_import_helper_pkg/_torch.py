import torch


def upcast_cache(kv_cache, dtype):
    out = torch.empty_like(kv_cache, dtype=dtype)
    out.copy_(kv_cache)  # positive: f7 CL001 fallback helper copies the whole kv_cache into a new dtype
    return out
