import torch

from .walk import iter_layers, iter_slots


class WalkingConnector:
    def __init__(self, vllm_config, role):
        self.kv_caches = {}
        self.sent = []

    def register_kv_caches(self, kv_caches):
        self.kv_caches = kv_caches
        self.shapes = {n: torch.tensor(c.shape, dtype=torch.int64) for n, c in kv_caches.items()}  # negative: shapes, at registration

    def wait_for_save(self):
        for name, cache in iter_layers(self.kv_caches):
            self.sent.append((name, cache.to(torch.bfloat16)))  # positive: f7 CL001 generator from walk.py yields whole layer caches

    def start_load_kv(self, forward_context, **kwargs):
        for name, rows in iter_slots(self.kv_caches, forward_context.slot_mapping):
            self.sent.append((name, rows.to(torch.bfloat16)))  # negative: the step's slots
        first = next(iter_layers(self.kv_caches))[1].half()  # positive: f7 CL001 first yielded layer, whole
        return first
