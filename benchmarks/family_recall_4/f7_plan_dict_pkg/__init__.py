"""Plan dtypes come as dicts from dtypes.py; planner.py holds the wrapper; backend.py plans."""
from .backend import DictPlanBackend

__all__ = ["DictPlanBackend"]
