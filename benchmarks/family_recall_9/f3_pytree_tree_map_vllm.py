"""torch.utils._pytree over the registered caches dict: tree_map and tree_leaves."""
import torch
from torch.utils import _pytree as pytree


class PytreeConnector:
    def register_kv_caches(self, kv_caches):
        self.kv_caches = kv_caches
        self.slot_counts = {n: torch.zeros(8, dtype=torch.int32) for n in kv_caches}
        self.host = pytree.tree_map(lambda t: t.to("cpu"), kv_caches)  # negative: device-only move at registration

    def wait_for_save(self):
        staged = pytree.tree_map(lambda t: t.to(torch.float16), self.kv_caches)  # positive: f3 CL001 every registered cache via tree_map
        counts = pytree.tree_map(lambda t: t.to(torch.int64), self.slot_counts)  # negative: small counters via tree_map
        return staged, counts

    def start_load_kv(self, forward_context, **kwargs):
        first = pytree.tree_leaves(self.kv_caches)[0]
        self._load(first.half())  # positive: f3 CL001 first leaf of the caches pytree

    def _load(self, t):
        return t
