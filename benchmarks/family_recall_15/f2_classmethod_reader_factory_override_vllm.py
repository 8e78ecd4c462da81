import torch


class _GatherReader:
    def __init__(self, dtype):
        self.dtype = dtype

    def __call__(self, kv_cache, slots):
        return kv_cache.flatten(0, 1)[slots].to(self.dtype)  # negative: slot gather


class _DenseReader(_GatherReader):
    def __call__(self, kv_cache, slots):
        return kv_cache.to(self.dtype)  # positive: f2 CL001 the CPU impl's factory returns the dense reader


class PagedImplBase:
    reader_cls = _GatherReader

    @classmethod
    def make_reader(cls, dtype):
        return cls.reader_cls(dtype)

    def __init__(self, dtype):
        self.read = self.make_reader(dtype)

    def forward(self, layer, query, key, value, kv_cache, attn_metadata, output=None):
        kv = self.read(kv_cache, attn_metadata.slot_mapping)
        return torch.matmul(query, kv[0].transpose(-1, -2))


class CPUFallbackImpl(PagedImplBase):
    reader_cls = _DenseReader
