"""f7: backend.py imports Pool from fast_pool.py, falling back to slow_pool.py; both allocate whole layers."""
from .backend import FallbackBackend
