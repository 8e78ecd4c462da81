import torch


def extract_layer_index(name):
    return int(name.split(".")[2])


class NameKeyedConnector:
    def __init__(self):
        self.by_index = {}
        self.names = []

    def register_kv_caches(self, kv_caches):
        self.by_index = {extract_layer_index(n): t for n, t in kv_caches.items()}
        self.names = sorted(kv_caches)
        self.host = {n: t.to("cpu") for n, t in kv_caches.items()}  # negative: registration-time device copy

    def wait_for_layer_load(self, layer_name):
        idx = extract_layer_index(layer_name)
        t = self.by_index[idx]
        return t.to(torch.float16)  # positive: f3 CL001 dict comprehension keyed by layer index

    def wait_for_save(self):
        odd = {i: t.float() for i, t in self.by_index.items() if i % 2}  # positive: f3 CL001 conversion inside a dict comprehension over layers
        n = torch.tensor(len(self.names), dtype=torch.int64)  # negative: count
        return odd, n
