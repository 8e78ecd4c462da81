"""Per-step hooks registered by name in one module and run by the model runner in another."""
from . import hooks
from .runner import HookedGPUModelRunner

__all__ = ["hooks", "HookedGPUModelRunner"]
