import torch


class KVOffloadConnector:
    def register_kv_caches(self, kv_caches):
        self.kv_caches = kv_caches
        self.order = sorted(kv_caches, key=lambda name: int(name.split(".")[2]))
        self.probe = {n: kv_caches[n].to(torch.float32) for n in self.order[:1]}  # negative: one-time setup

    def wait_for_save(self):
        staged = []
        for name in sorted(self.kv_caches, key=lambda n: int(n.split(".")[2]), reverse=True):
            staged.append(self.kv_caches[name].to(torch.float16))  # positive: f3 CL001 every whole layer in sorted order
        return staged

    def start_load_kv(self, forward_context):
        layers = sorted(self.kv_caches.items(), key=lambda kv: kv[0])
        first_name, first_cache = layers[0]
        slots = forward_context.slot_mapping
        return first_cache.flatten(1, 2)[:, slots].to(torch.float16)  # negative: only this step's slots
