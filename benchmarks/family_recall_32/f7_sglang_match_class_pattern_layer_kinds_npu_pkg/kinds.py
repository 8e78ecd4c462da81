from dataclasses import dataclass

import torch


@dataclass
class DenseLayer:
    buf: torch.Tensor


@dataclass
class PagedLayer:
    buf: torch.Tensor
    loc: torch.Tensor


def to_kernel(layer, dtype):
    match layer:
        case DenseLayer(buf=buf):
            return buf.to(dtype)  # positive: f7 CL001 whole layer buffer when the read is a DenseLayer
        case PagedLayer(buf=buf, loc=loc):
            return buf[loc].to(dtype)  # negative: row gather before the cast
        case _:
            raise TypeError(type(layer).__name__)
