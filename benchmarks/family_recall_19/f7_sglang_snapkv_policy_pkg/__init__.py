"""SnapKV-style eviction for sglang: the backend owns the pool, scoring widens it."""
from .backend import EvictingTritonBackend

__all__ = ["EvictingTritonBackend"]
