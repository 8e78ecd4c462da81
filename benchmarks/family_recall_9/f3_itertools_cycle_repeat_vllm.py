"""An itertools.cycle over registered caches advanced per step, and itertools.repeat of one cache."""
import itertools

import torch


class CycleConnector:
    def register_kv_caches(self, kv_caches):
        self.kv_caches = kv_caches
        self.ring = itertools.cycle(kv_caches.values())
        self.count_ring = itertools.cycle([torch.zeros(4, dtype=torch.int32) for _ in kv_caches])

    def wait_for_save(self):
        cache = next(self.ring)
        self._flush(cache.to(torch.float16))  # positive: f3 CL001 next registered cache from the cycle
        cnt = next(self.count_ring).to(torch.int64)  # negative: small per-layer counters
        self._flush(cnt)

    def wait_for_layer_load(self, layer_name):
        for t in itertools.repeat(self.kv_caches[layer_name], 2):
            self._flush(t.half())  # positive: f3 CL001 the registered cache repeated by itertools.repeat

    def save_kv_layer(self, layer_name, kv_layer, attn_metadata, **kwargs):
        for rows in itertools.repeat(kv_layer[:, attn_metadata.slot_mapping], 1):
            self._flush(rows.to(torch.float16))  # negative: the step's slots

    def _flush(self, t):
        return t
