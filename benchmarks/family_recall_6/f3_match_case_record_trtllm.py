"""Structural pattern matching over layer-cache records (class, mapping and sequence patterns)."""
from dataclasses import dataclass

import torch


@dataclass
class LayerEntry:
    kind: str
    buf: torch.Tensor
    blocks: torch.Tensor


class SpecDecodeKVCopier:
    def __init__(self, manager, num_layers):
        self.entries = []
        for i in range(num_layers):
            buf = manager.get_buffers(i)
            self.entries.append(LayerEntry("full", buf, torch.arange(4)))
        self.raw = [{"buf": manager.get_buffers(i), "scale": torch.ones(1)} for i in range(num_layers)]
        self.pairs = [(manager.get_buffers(i)[:, 0], manager.get_buffers(i)[:, 1]) for i in range(num_layers)]

    def forward(self, metadata, dtype=torch.bfloat16):
        out = []
        for entry in self.entries:
            match entry:
                case LayerEntry(kind="full", buf=b):
                    out.append(b.to(dtype))  # positive: f3 CL001 the matched record's whole layer buffer
                case LayerEntry(kind="window", buf=b, blocks=ids):
                    out.append(b[ids].to(dtype))  # negative: the window's blocks only
        for item in self.raw:
            match item:
                case {"buf": t, "scale": s}:
                    out.append(t.float())  # positive: f3 CL001 the mapping pattern binds the whole buffer
                    out.append(s.to(dtype))  # negative: scale
        match self.pairs[metadata.layer_idx]:
            case (k_half, v_half):
                out.append(k_half.to(dtype))  # positive: f3 CL001 every block's K half, bound by a sequence pattern
        ids = self.entries[0].blocks.to(torch.int32)  # negative: block ids
        return out
