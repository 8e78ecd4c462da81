"""f1: a LayerView record rebuilt with dataclasses.replace; the buffer field rides along."""
import dataclasses

import torch


@dataclasses.dataclass(frozen=True)
class LayerView:
    buf: torch.Tensor
    layer_idx: int
    scale: float = 1.0


class KVCacheManagerLite:
    def __init__(self, num_layers: int, num_blocks: int, tokens_per_block: int, dtype: torch.dtype):
        self.pools = [
            torch.empty((num_blocks, 2, tokens_per_block, 8, 128), dtype=dtype, device="cuda")
            for _ in range(num_layers)
        ]

    def get_buffers(self, layer_idx: int) -> torch.Tensor:
        return self.pools[layer_idx]

    def view_of(self, layer_idx: int) -> LayerView:
        return LayerView(self.get_buffers(layer_idx), layer_idx)


class ReplaceAttention:
    def __init__(self, layer_idx: int, manager: KVCacheManagerLite):
        self.layer_idx = layer_idx
        self.manager = manager

    def forward(self, q, k, v, metadata):
        view = self.manager.view_of(self.layer_idx)
        scaled = dataclasses.replace(view, scale=metadata.kv_scale)
        dense = scaled.buf.to(torch.bfloat16)  # positive: f1 CL001 replace() keeps the whole buffer
        rows = dataclasses.replace(view, buf=view.buf[metadata.block_ids])
        picked = rows.buf.to(torch.bfloat16)  # negative: buf was replaced by the step's blocks
        return dense, picked, scaled.scale

    def __call__(self, q, metadata):
        other = dataclasses.replace(self.manager.view_of(self.layer_idx), layer_idx=0)
        v_all = other.buf[:, 1].float()  # positive: f1 CL001 V half of every block via a replaced record
        shape = other.buf.shape  # negative: metadata only
        return v_all, shape
