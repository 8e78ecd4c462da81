"""Dataclass inheritance where each __post_init__ calls super().__post_init__ and derives views."""
from dataclasses import dataclass, field
from typing import Any

import torch


@dataclass
class LayerViewBase:
    manager: Any
    layer_idx: int
    buf: Any = field(init=False)

    def __post_init__(self):
        self.buf = self.manager.get_buffers(self.layer_idx)


@dataclass
class HalvesView(LayerViewBase):
    k: Any = field(init=False)
    lens: Any = field(default_factory=lambda: torch.zeros(8, dtype=torch.int32))

    def __post_init__(self):
        super().__post_init__()
        self.k = self.buf.select(1, 0)


class PostInitAttention:
    def forward(self, q, k, v, attn_metadata):
        view = HalvesView(attn_metadata.kv_cache_manager, 3)
        kk = view.k.to(q.dtype)  # positive: f2 CL001 K half derived in a chained __post_init__
        lens = view.lens.to(torch.int64)  # negative: lengths
        return kk, lens
