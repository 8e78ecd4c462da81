"""f7: a pool with properties in pool.py; the backend in backend.py reads the properties."""
from .backend import PropertyBackend
from .pool import LatentPool

__all__ = ["LatentPool", "PropertyBackend"]
