"""Re-exports the pool under a short name."""

from .pool import BlockLatentPool as KVArena

__all__ = ["KVArena"]
