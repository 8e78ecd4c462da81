from dataclasses import dataclass

import torch


@dataclass
class FallbackMetadata:
    kv_cache_manager: object
    seq_lens: torch.Tensor

    def materialize(self, layer_idx, dtype):
        buf = self.kv_cache_manager.get_buffers(layer_idx)
        return buf.to(dtype)  # positive: f4 CL001 a method of the metadata record converts the manager buffer

    def lens(self):
        return self.seq_lens.to(torch.int32)  # negative: lengths


class MetaMethodAttention:
    def __init__(self, layer_idx, dtype):
        self.layer_idx = layer_idx
        self.dtype = dtype

    def forward(self, q, k, v, metadata, **kwargs):
        dense = metadata.materialize(self.layer_idx, self.dtype)
        return dense, metadata.lens()
