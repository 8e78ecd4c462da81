import torch


class CacheReader:
    def __init__(self, dtype: torch.dtype):
        self.dtype = dtype

    @classmethod
    def for_dtype(cls, dtype):
        return cls(dtype)

    def read(self, kv_cache: torch.Tensor):
        key_cache, value_cache = kv_cache.unbind(0)
        return key_cache.to(self.dtype), value_cache.to(self.dtype)  # positive: f7 CL001 both whole planes handed over by impl.forward

    def read_blocks(self, kv_cache: torch.Tensor, block_ids: torch.Tensor):
        return kv_cache[:, block_ids].to(self.dtype)  # negative: blocks first
