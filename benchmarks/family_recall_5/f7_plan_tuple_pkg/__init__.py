"""Plan dtypes (dtypes.py), planners (planner.py) and the backend (backend.py)."""

from .backend import TuplePlanBackend

__all__ = ["TuplePlanBackend"]
