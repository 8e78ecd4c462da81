"""resource.py owns the pool; ops.py has a generic cast; attention.py passes the pool to it."""
from .attention import OpsAttention

__all__ = ["OpsAttention"]
