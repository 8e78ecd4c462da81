import torch


class KVStatsCollector:
    def __init__(self, dtype=torch.float32):
        self.dtype = dtype

    def widen(self, cache):
        return cache.to(self.dtype)  # positive: f4 CL001 every caller maps it over whole layer caches

    def widen_rows(self, pair):
        cache, slots = pair
        return cache.flatten(1, 2)[:, slots].to(self.dtype)  # negative: slot rows


class GPUModelRunner:
    def __init__(self):
        self.kv_caches = []
        self.stats = KVStatsCollector()

    def execute_model(self, scheduler_output, intermediate_tensors=None):
        wide = list(map(self.stats.widen, self.kv_caches))
        slots = scheduler_output.slot_mapping
        rows = list(map(self.stats.widen_rows, [(c, slots) for c in self.kv_caches]))
        return wide, rows
