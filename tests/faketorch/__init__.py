"""A pure-Python fake torch and FlashInfer, and a harness that runs an original and a
fixed module on them side by side (castlint's fix-equivalence proof)."""
from faketorch.module import make_torch
from faketorch.tensor import DTYPES, FakeTorchUnsupported, Tensor

__all__ = ["make_torch", "DTYPES", "FakeTorchUnsupported", "Tensor"]
