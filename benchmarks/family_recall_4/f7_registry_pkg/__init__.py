"""Pool registry in one module, filled by the runner module, read by the backend module."""
from .registry import get_entry, register

__all__ = ["get_entry", "register"]
