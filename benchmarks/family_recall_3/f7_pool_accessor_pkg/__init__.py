from .pool import ArenaMLAPool
from .backend import ArenaMLABackend

__all__ = ["ArenaMLAPool", "ArenaMLABackend"]
