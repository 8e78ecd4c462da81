from collections import UserDict

import torch


class CacheTable(UserDict):
    def layer(self, name):
        return self.data[name]


class UserDictConnector:
    def __init__(self):
        self.table = CacheTable()

    def register_kv_caches(self, kv_caches):
        self.table.update(kv_caches)

    def wait_for_layer_load(self, layer_name):
        t = self.table.layer(layer_name)
        return t.half()  # positive: f3 CL001 UserDict subclass lookup of a registered cache

    def wait_for_save(self):
        for name in list(self.table):
            _ = self.table[name].to(torch.bfloat16)  # positive: f3 CL001 every registered cache via UserDict __getitem__
        n = torch.tensor(len(self.table), dtype=torch.int32)  # negative: count
        return n
