# TensorRT-LLM PyTorch flow: a per-step IO context built from attention metadata keeps the manager's buffer.
from dataclasses import dataclass

import torch


@dataclass
class LayerIOContext:
    layer_idx: int
    kv_buffer: torch.Tensor
    kv_scale: torch.Tensor

    @classmethod
    def from_metadata(cls, metadata, layer_idx):
        mgr = metadata.kv_cache_manager
        return cls(layer_idx, mgr.get_buffers(layer_idx), mgr.kv_scales[layer_idx])


class VanillaSinkAttention:
    def forward(self, q, k, v, metadata, **kwargs):
        io = LayerIOContext.from_metadata(metadata, self.layer_idx)
        kv = io.kv_buffer.to(q.dtype)  # positive: f1 CL001 manager buffer carried by the context object
        scale = io.kv_scale.to(q.dtype)  # negative: scale tensor, not the cache
        out = self._attend(q, kv, scale, metadata)
        return out.to(torch.float16)  # negative: attention output
