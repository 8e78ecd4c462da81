"""copy.copy / copy.deepcopy of a layer buffer and an explicit __getitem__(slice(None)), then converted."""
import copy

import torch


class CopyModuleBackend:
    def __init__(self, dtype):
        self.dtype = dtype

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        buf = forward_batch.token_to_kv_pool.get_value_buffer(layer.layer_id)
        a = copy.deepcopy(buf).to(self.dtype)  # positive: f5 CL001 deep copy of the whole layer
        b = copy.copy(buf).float()  # positive: f5 CL001 shallow copy of the whole layer
        c = buf.__getitem__(slice(None)).half()  # positive: f5 CL001 explicit full-slice __getitem__
        loc = copy.copy(forward_batch.out_cache_loc).to(torch.int32)  # negative: a copy of the slot indices
        e = buf.__getitem__(forward_batch.out_cache_loc).to(self.dtype)  # negative: gather via __getitem__
        return a, b, c, loc, e
