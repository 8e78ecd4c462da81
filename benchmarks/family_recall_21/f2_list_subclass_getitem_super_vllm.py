import torch


class KVCacheList(list):
    """List of per-layer caches; the base returns the raw cache tensor."""

    compute_dtype = None

    def __getitem__(self, idx):
        item = super().__getitem__(idx)
        if self.compute_dtype is None or isinstance(idx, slice):
            return item
        return item.to(self.compute_dtype)  # positive: f2 CL001 whole layer cache, reached via layer lookups below


class HalfKVCacheList(KVCacheList):
    compute_dtype = torch.float16


class TuringPagedAttentionRunner:
    """Turing (SM75) has no FP8 paged kernel: caches are read through a widening list."""

    def __init__(self, kv_caches):
        self.kv_caches = HalfKVCacheList(kv_caches)
        self.raw = list(kv_caches)

    def execute_model(self, scheduler_output, block_ids):
        out = []
        for i in range(len(self.raw)):
            kv = self.kv_caches[i]
            rows = self.raw[i][:, block_ids].to(torch.float16)  # negative: blocks selected first
            same = self.raw[i].to(self.raw[i].dtype)  # negative: same dtype
            out.append((kv, rows, same))
        return out
