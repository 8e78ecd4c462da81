"""Enum members whose values are mutable holders; the runner fills the caches of one member."""
import enum

import torch


class _Holder:
    def __init__(self):
        self.kv_caches = []
        self.block_table = torch.zeros(1, dtype=torch.int32)


class Slot(enum.Enum):
    MAIN = _Holder()
    DRAFT = _Holder()


class EnumSlotImpl:
    def __init__(self, layer_idx):
        self.layer_idx = layer_idx

    def forward(self, layer, query, key, value, kv_cache, attn_metadata, output=None):
        caches = Slot.MAIN.value.kv_caches
        whole = caches[self.layer_idx].to(query.dtype)  # positive: f1 CL001 cache from an enum member's holder
        draft = Slot["DRAFT"].value.kv_caches[0].half()  # positive: f1 CL001 draft cache by enum name
        bt = Slot.MAIN.value.block_table.to(torch.int64)  # negative: block table
        return whole, draft, bt


class EnumRunner:
    def initialize_kv_cache(self, num_blocks, num_layers):
        self.kv_caches = [torch.zeros(2, num_blocks, 16, 8, 128, dtype=torch.float8_e4m3fn) for _ in range(num_layers)]
        Slot.MAIN.value.kv_caches = self.kv_caches
        Slot.DRAFT.value.kv_caches = self.kv_caches[-1:]
