from dataclasses import dataclass, fields

import torch


@dataclass
class LayerKV:
    key: torch.Tensor
    value: torch.Tensor
    kv_scale: torch.Tensor


class ReferenceAttentionBackend:
    """Debug reference path of a TRT-LLM backend: densifies the layer record field by field."""

    def __init__(self, layer_idx, dtype=torch.float32):
        self.layer_idx = layer_idx
        self.ref_dtype = dtype

    def _record(self, mgr):
        buf = mgr.get_buffers(self.layer_idx)
        return LayerKV(buf[:, 0], buf[:, 1], mgr.get_scales(self.layer_idx))

    def forward(self, q, k, v, metadata):
        rec = self._record(metadata.kv_cache_manager)
        dense = {}
        for f in fields(rec):
            t = getattr(rec, f.name)
            if f.name == "kv_scale":
                dense[f.name] = t.to(self.ref_dtype)  # negative: scales
            else:
                dense[f.name] = t.to(self.ref_dtype)  # positive: f3 CL001 key/value planes of every block, reached through dataclass fields
        q = q.to(self.ref_dtype)  # negative: query
        return q, dense
