"""Base class that knows where the runner keeps its caches."""

import torch


class KVReaderBase:
    def __init__(self, runner):
        self.runner = runner
        self.lengths = torch.zeros(1024, dtype=torch.int32, device="cuda")

    def _layer_cache(self, idx):
        return self.runner.kv_caches[idx]

    def _recent_blocks(self, idx, block_ids):
        return self.runner.kv_caches[idx][:, block_ids]

    def _lengths(self, n):
        return self.lengths[:n]
