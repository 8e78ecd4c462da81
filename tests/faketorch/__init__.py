"""A pure-Python fake torch, castlint's sglang and FlashInfer double bound to it
(castlint.validate.doubles, the one `castlint validate` runs; only the float64 MLA kernel is
the fake torch's own), and a harness that runs an original and a fixed module on them side by
side (castlint's fix-equivalence proof)."""

from faketorch.module import make_torch
from faketorch.tensor import DTYPES, FakeTorchUnsupported, Tensor

__all__ = ["make_torch", "DTYPES", "FakeTorchUnsupported", "Tensor"]
