"""ops.dequant is a stub; __init__ patches it with fallback.dequant_torch at import; impl.py calls ops.dequant."""
from . import fallback, ops

ops.dequant = fallback.dequant_torch
ops.scale_to = fallback.scale_torch

from .impl import PatchedOpsImpl  # noqa: E402

__all__ = ["ops", "PatchedOpsImpl"]


def patched():
    return ops.dequant is fallback.dequant_torch


def unpatch():
    from importlib import reload
    return reload(ops)
