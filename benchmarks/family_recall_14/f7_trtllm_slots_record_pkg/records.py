"""LayerKV always holds a whole manager buffer (attention.py builds it from get_buffers)."""
from dataclasses import dataclass
from typing import Optional

import torch


@dataclass(slots=True)
class LayerKV:
    buf: torch.Tensor
    scale: Optional[torch.Tensor] = None

    def dense(self, dtype):
        return self.buf.to(dtype)  # positive: f7 CL001 the record's whole layer buffer

    def dense_keys(self, dtype):
        return self.buf[:, 0].to(dtype)  # positive: f7 CL001 key half of every block

    def scale_f32(self):
        return self.scale.float()  # negative: a scale

    def blocks(self, block_ids, dtype):
        return self.buf[block_ids].to(dtype)  # negative: gathered blocks
