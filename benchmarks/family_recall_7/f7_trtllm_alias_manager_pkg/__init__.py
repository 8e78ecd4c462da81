"""f7: a KV manager in resource.py re-exported under another name; attention.py imports it from the package."""
from .resource import KVCacheManagerLite as Manager

__all__ = ["Manager"]
