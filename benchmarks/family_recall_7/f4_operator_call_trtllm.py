"""f4: accessors and converters invoked through operator.call (Python 3.11)."""
import operator

import torch


class CallKVManager:
    def __init__(self, num_layers, blocks, tpb, heads, dim, dtype):
        self.pools = [torch.empty((blocks, 2, tpb, heads, dim), dtype=dtype, device="cuda") for _ in range(num_layers)]

    def get_buffers(self, layer_idx):
        return self.pools[layer_idx]


class OperatorCallAttention:
    def __init__(self, layer_idx, mgr: CallKVManager):
        self.layer_idx = layer_idx
        self.mgr = mgr

    def forward(self, q, k, v, metadata):
        buf = operator.call(self.mgr.get_buffers, self.layer_idx)
        dense = buf.to(q.dtype)  # positive: f4 CL001 accessor called via operator.call
        half = operator.call(torch.Tensor.half, self.mgr.get_buffers(self.layer_idx))  # positive: f4 CL001 converter called via operator.call
        ids = operator.call(torch.Tensor.long, metadata.block_ids)  # negative: block ids
        kq = operator.call(torch.Tensor.to, k, q.dtype)  # negative: batch keys
        return dense, half, ids, kq
