import torch


class KVCacheViewManager:
    def __init__(self, kv_caches, compute_dtype):
        self.kv_caches = kv_caches
        self.compute_dtype = compute_dtype

    def layer_view(self, idx):
        cache = self.kv_caches[idx]
        if cache.dtype in (torch.float8_e4m3fn, torch.uint8):
            return cache.view(torch.float8_e4m3fn).to(self.compute_dtype)  # positive: f6 CL004 accessor reinterprets then converts the whole layer
        return cache

    def layer_raw(self, idx):
        return self.kv_caches[idx].view(torch.float8_e4m3fn)  # negative: zero-copy view


class TPUStyleRunner:
    def __init__(self, kv_caches):
        self.views = KVCacheViewManager(kv_caches, torch.bfloat16)

    def execute_model(self, scheduler_output, intermediate_tensors=None):
        return [self.views.layer_view(i) for i in range(len(self.views.kv_caches))]
