import torch


def upcast_cache(kv_cache, dtype):
    if kv_cache.dtype == dtype:
        return kv_cache
    return torch.Tensor.type(kv_cache, dtype)  # positive: f7 CL001 fallback helper, only given the layer's kv_cache
