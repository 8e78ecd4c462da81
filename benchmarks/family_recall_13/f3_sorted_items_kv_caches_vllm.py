import torch


class DebugChecksumConnector:
    def register_kv_caches(self, kv_caches: dict[str, torch.Tensor]):
        self.kv_caches = kv_caches
        self.order = sorted(kv_caches)

    def wait_for_save(self):
        sums = []
        for name, cache in sorted(self.kv_caches.items(), key=lambda kv: self.order.index(kv[0])):
            sums.append(cache.to(torch.float32).sum())  # positive: f3 CL001 cache from sorted items of the registered dict
        self.last = torch.stack(sums).to(torch.float64)  # negative: one scalar per layer
        return self.last

    def save_kv_layer(self, layer_name, kv_layer, attn_metadata, **kwargs):
        slots = attn_metadata.slot_mapping
        rows = kv_layer.flatten(1, 2)[:, slots]
        self.pending = rows.to(torch.float32)  # negative: the step's slots gathered first
