"""f3: itertools.compress and zip_longest over the registered layer caches in a connector."""
import itertools

import torch


class CompressConnector:
    def __init__(self, vllm_config, role):
        self.kv_caches = []
        self.names = []
        self.offload = []

    def register_kv_caches(self, kv_caches):
        self.names = list(kv_caches)
        self.kv_caches = list(kv_caches.values())
        self.offload = [i % 2 == 0 for i in range(len(self.kv_caches))]

    def wait_for_save(self):
        for cache in itertools.compress(self.kv_caches, self.offload):
            self._ship(cache.to(torch.bfloat16))  # positive: f3 CL001 each selected entry is a whole layer cache

    def start_load_kv(self, forward_context, **kwargs):
        slots = forward_context.slot_mapping
        for name, cache in itertools.zip_longest(self.names, self.kv_caches):
            if cache is None:
                continue
            dense = cache.half()  # positive: f3 CL001 zip_longest pairs name with whole cache
            rows = cache.view(2, -1, cache.shape[-2], cache.shape[-1])[:, slots].half()  # negative: the step's slots
            self._ship(dense, rows)
        flags = torch.tensor(self.offload, dtype=torch.bool)  # negative: python flags
        return flags

    def _ship(self, *tensors):
        pass
