"""vLLM-style impl.py builds a reader from reader.py with a classmethod factory, per forward."""
from .reader import CacheReader

__all__ = ["CacheReader"]
