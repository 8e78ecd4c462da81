"""TensorRT-LLM: a vanilla backend splits a layer's [blocks, 2, ...] buffer with unbind(1)
and picks planes with operator.itemgetter."""
import operator

import torch

key_and_value = operator.itemgetter(0, 1)
first_block = operator.itemgetter(0)


class VanillaNoFp8Attention:
    def __init__(self, layer_idx, dtype):
        self.layer_idx = layer_idx
        self.dtype = dtype

    def forward(self, q, k, v, metadata):
        buf = metadata.kv_cache_manager.get_buffers(self.layer_idx)
        keys, values = key_and_value(buf.unbind(1))
        keys = keys.to(self.dtype)  # positive: f3 CL001 key plane of every block
        values = values.to(self.dtype)  # positive: f3 CL001 value plane of every block
        sink = first_block(buf).to(self.dtype)  # negative: a single block
        return self._sdpa(q, keys, values, sink, metadata)

    def _sdpa(self, q, keys, values, sink, metadata):
        return q
