import torch


class SnapKVCompressor:
    """Observation-window scores over the whole key cache, run after each prefill step."""

    def __init__(self, window=32):
        self.window = window

    def scores(self, query, kv_cache):
        keys = kv_cache[0].float()  # positive: f6 CL001 whole key plane widened for SnapKV scoring
        q = query[-self.window:].float()  # negative: the query window
        return torch.einsum("qhd,bshd->bsh", q, keys)


class GPUModelRunnerWithSnapKV:
    def __init__(self, kv_caches, compressor: SnapKVCompressor):
        self.kv_caches = kv_caches
        self.compressor = compressor

    def execute_model(self, scheduler_output, last_query):
        per_layer = [self.compressor.scores(last_query, c) for c in self.kv_caches]
        return per_layer

    def initialize_kv_cache(self, kv_cache_config):
        self.probe = [c[1].float() for c in self.kv_caches]  # negative: one-time setup
