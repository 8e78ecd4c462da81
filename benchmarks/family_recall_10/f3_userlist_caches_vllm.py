"""A collections.UserList subclass holding the runner's kv_caches; indexed, sliced and iterated."""
import collections

import torch


class CacheList(collections.UserList):
    def for_layer(self, idx):
        return self.data[idx]


class UserListRunner:
    def __init__(self):
        self.kv_caches = CacheList()
        self.positions = torch.zeros(1024, dtype=torch.int64)

    def initialize_kv_cache_tensors(self, num_blocks, num_layers):
        self.kv_caches.extend(torch.zeros(2, num_blocks, 16, 8, 128, dtype=torch.float8_e4m3fn) for _ in range(num_layers))

    def execute_model(self, scheduler_output, intermediate_tensors=None):
        a = self.kv_caches.for_layer(0).to(torch.float16)  # positive: f3 CL001 UserList method returns a whole cache
        b = self.kv_caches[-1].bfloat16()  # positive: f3 CL001 UserList __getitem__
        c = [t.float() for t in self.kv_caches[1:2]]  # positive: f3 CL001 UserList slice, whole caches
        pos = self.positions[: scheduler_output.total_num_scheduled_tokens].to(torch.int32)  # negative: positions
        return a, b, c, pos
