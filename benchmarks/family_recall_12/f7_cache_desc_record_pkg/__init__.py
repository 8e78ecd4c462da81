"""CacheDesc records (desc.py) are resolved against the cache engine (engine.py) by the impl (impl.py)."""
from .desc import CacheDesc, Kind
from .engine import resolve
from .impl import DescAttentionImpl

__all__ = ["CacheDesc", "Kind", "resolve", "DescAttentionImpl"]


def kinds():
    return list(Kind)


def make(layer, kind):
    return CacheDesc(layer, kind)


def version():
    return "0"


def name():
    return "cache_desc"
