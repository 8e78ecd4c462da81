"""An async model agent whose cache conversion lives in cache_ops.py."""
from .agent import FallbackModelAgent

__all__ = ["FallbackModelAgent"]
