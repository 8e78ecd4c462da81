from dataclasses import dataclass

import torch

from .dispatch import to_compute


@dataclass
class LayerView:
    buf: torch.Tensor
    layer_id: int


@dataclass
class RowsView:
    rows: torch.Tensor


@to_compute.register
def _(v: LayerView, dtype):
    return v.buf.to(dtype)  # positive: f7 CL001 overload registered from another module, given whole layer views


@to_compute.register
def _(v: RowsView, dtype):
    return v.rows.to(dtype)  # negative: gathered rows
