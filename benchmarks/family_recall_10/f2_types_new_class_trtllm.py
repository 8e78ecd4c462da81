"""Manager variants built with types.new_class and an exec_body that adds an accessor."""
import types

import torch


class KVManagerBase:
    def __init__(self, blocks, layers):
        self.pools = [torch.empty(blocks, 2, 32, 4, 64, dtype=torch.float8_e4m3fn) for _ in range(layers)]
        self.lengths = torch.zeros(blocks, dtype=torch.int32)


def _body(ns):
    ns["layer_pool"] = lambda self, i: self.pools[i]
    ns["first_block"] = lambda self, i: self.pools[i][:1]


MLAManager = types.new_class("MLAManager", (KVManagerBase,), exec_body=_body)


class NewClassAttention:
    def __init__(self, layer_idx):
        self.mgr = MLAManager(2048, 4)
        self.layer_idx = layer_idx

    def forward(self, q, k, v, attn_metadata):
        whole = self.mgr.layer_pool(self.layer_idx).to(q.dtype)  # positive: f2 CL001 accessor added by exec_body
        one = self.mgr.first_block(self.layer_idx).to(q.dtype)  # negative: a single block
        lens = self.mgr.lengths.to(torch.int64)  # negative: lengths
        return whole, one, lens
