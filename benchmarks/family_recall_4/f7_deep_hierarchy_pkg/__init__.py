"""Base in base.py returns the pool buffer, middle.py reshapes via super(), leaf.py casts."""
from .leaf import LeafBackend

__all__ = ["LeafBackend"]
