"""Fallback attention backend split over two modules: kvutil converts, backend owns the pool access."""
from .backend import XPUFallbackBackend

__all__ = ["XPUFallbackBackend"]
