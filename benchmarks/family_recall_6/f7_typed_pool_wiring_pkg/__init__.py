"""A pool built in runner.py, typed only under TYPE_CHECKING in backend.py."""
from .runner import MiniRunner

__all__ = ["MiniRunner"]
