from dataclasses import dataclass, field

import torch


@dataclass
class LayerCacheRecord:
    name: str
    kv_cache: torch.Tensor
    key: torch.Tensor = field(init=False)
    value: torch.Tensor = field(init=False)

    def __post_init__(self):
        self.key, self.value = self.kv_cache[0], self.kv_cache[1]


class KVSnapshotConnectorWorker:
    def register_kv_caches(self, kv_caches):
        self.records = [LayerCacheRecord(n, c) for n, c in kv_caches.items()]
        self.init_copy = [r.key.float() for r in self.records]  # negative: register_kv_caches setup

    def save_kv_layer(self, layer_name, kv_layer, attn_metadata, **kwargs):
        for rec in self.records:
            if rec.name == layer_name:
                return rec.key.to(torch.float16), rec.value.to(torch.float16)  # positive: f3 CL001 both whole planes from a record (one line)
        return None

    def wait_for_save(self):
        return [r.value.to(r.value.dtype) for r in self.records]  # negative: same dtype
