"""Lazy re-exports (PEP 562 module __getattr__): the pool class is imported on first access."""
import importlib

__all__ = ["PagedLatentPool", "LatentBackend"]

_LAZY = {
    "PagedLatentPool": ".pool",
    "LatentBackend": ".backend",
}


def __getattr__(name):
    if name in _LAZY:
        module = importlib.import_module(_LAZY[name], __name__)
        return getattr(module, name)
    raise AttributeError(name)
