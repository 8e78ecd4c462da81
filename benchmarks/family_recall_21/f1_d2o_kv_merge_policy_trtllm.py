import torch
import torch.nn.functional as F


class D2OMergePolicy:
    """D2O-style merging: evicted tokens are merged into their most similar kept token."""

    def __init__(self, kv_cache_manager, threshold: float = 0.5):
        self.kv_cache_manager = kv_cache_manager
        self.threshold = threshold

    def _keys(self, layer_idx):
        return self.kv_cache_manager.get_buffers(layer_idx)[:, 0]

    def similarity(self, layer_idx: int, evicted: torch.Tensor) -> torch.Tensor:
        keys = self._keys(layer_idx)
        dense = F.normalize(keys.flatten(0, 1).float(), dim=-1)  # positive: f1 CL001 whole key plane (last-dim pick)
        ev = F.normalize(evicted.float(), dim=-1)  # negative: evicted token tensor of the batch
        return ev.flatten(0, -2) @ dense.flatten(0, -2).T

    def merge_rows(self, layer_idx: int, rows: torch.Tensor) -> torch.Tensor:
        return self._keys(layer_idx).flatten(0, 1)[rows].float()  # negative: rows first


class D2OExecutor:
    def __init__(self, kv_cache_manager):
        self.policy = D2OMergePolicy(kv_cache_manager)

    def _forward_step(self, scheduled_requests, evicted_by_layer, keep_rows):
        sims = {i: self.policy.similarity(i, ev) for i, ev in evicted_by_layer.items()}
        kept = {i: self.policy.merge_rows(i, keep_rows) for i in evicted_by_layer}
        return sims, kept
