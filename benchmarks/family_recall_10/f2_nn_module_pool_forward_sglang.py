"""The pool is an nn.Module whose forward(layer_id) returns the layer buffer; it is called, not .get'd."""
import torch
from torch import nn


class ModulePool(nn.Module):
    def __init__(self, size, layers, dtype):
        super().__init__()
        for i in range(layers):
            self.register_buffer(f"kv_{i}", torch.empty(size, 1, 576, dtype=dtype), persistent=False)

    def forward(self, layer_id):
        return getattr(self, f"kv_{layer_id}")


class RowPool(ModulePool):
    def forward(self, layer_id, loc=None):
        return super().forward(layer_id)[loc]


class ModuleCallBackend:
    def __init__(self, dtype):
        self.pool = ModulePool(8192, 4, torch.float8_e4m3fn)
        self.rows = RowPool(8192, 4, torch.float8_e4m3fn)
        self.dtype = dtype

    def forward_extend(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        lat = self.pool(layer.layer_id).to(q.dtype)  # positive: f2 CL001 nn.Module __call__ -> forward returns the layer
        cur = self.rows(layer.layer_id, forward_batch.out_cache_loc).to(q.dtype)  # negative: subclass gathers rows
        return lat, cur
