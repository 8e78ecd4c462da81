"""lmdeploy Cambricon MLU: layers grouped in a defaultdict by cache dtype; int8 groups widened per step."""
from collections import defaultdict

import torch


class MLUCacheGrouping:
    def __init__(self, cache_engine, dtype=torch.float16):
        self.cache_engine = cache_engine
        self.dtype = dtype

    def _groups(self):
        groups = defaultdict(list)
        for idx, (k, v) in enumerate(self.cache_engine.gpu_cache):
            groups[str(k.dtype)].append((idx, k, v))
        return groups

    def update_step_context(self, step_context):
        dense = {}
        for idx, k, v in self._groups()["torch.int8"]:
            dense[idx] = (k.to(self.dtype), v.to(self.dtype))  # positive: f3 CL001 whole int8 layer caches from the dtype group
        for idx, k, v in self._groups()["torch.float16"]:
            dense[idx] = (k.to(self.dtype), v)  # negative: already fp16 (same dtype)
        step_context.dense_caches = dense
        step_context.kv_seqlens = step_context.kv_seqlens.to(torch.int32)  # negative: lengths
        return step_context
