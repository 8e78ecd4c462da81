import torch


class PlaneWidener:
    def __init__(self, dtype):
        self.dtype = dtype

    def whole(self, kv_cache):
        return kv_cache.to(self.dtype)  # positive: f7 CL001 whole layer cache handed over by impl.forward

    def blocks(self, kv_cache, block_ids):
        return kv_cache[:, block_ids].to(self.dtype)  # negative: blocks selected first
