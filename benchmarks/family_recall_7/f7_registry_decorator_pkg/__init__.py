"""f7: a decorator registry in registry.py, a pool registered in pools.py, built by name in attn.py."""
from . import pools  # noqa: F401  (registers the pool classes)
from .attn import RegistryBackend
