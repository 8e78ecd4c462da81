"""PagedCache is defined in cache.py (one accessor converts inside); attention.py uses it."""
from .attention import PagedCacheAttention
from .cache import PagedCache

__all__ = ["PagedCache", "PagedCacheAttention"]
