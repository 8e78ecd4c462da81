# vLLM v1 offloading connector: layers ranked by a priority record (dataclass with
# order=True); the first `budget` layers are snapshotted whole each step.
from dataclasses import dataclass, field

import torch


@dataclass(order=True)
class _LayerPriority:
    score: float
    name: str = field(compare=False)
    cache: torch.Tensor = field(compare=False, repr=False)


class PriorityOffloadConnector:
    def register_kv_caches(self, kv_caches):
        self.kv_caches = kv_caches

    def start_load_kv(self, forward_context, **kwargs):
        ranked = sorted(_LayerPriority(self.scores.get(n, 0.0), n, c) for n, c in self.kv_caches.items())
        for rec in ranked[: self.budget]:
            self.snapshots[rec.name] = rec.cache.to(torch.float16)  # positive: f3 CL001 whole cache from the record
        for rec in ranked[self.budget:]:
            self.snapshots[rec.name] = rec.cache[:, self.hot_blocks].to(torch.float16)  # negative: hot blocks only
