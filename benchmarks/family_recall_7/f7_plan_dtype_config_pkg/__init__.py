"""f7: plan dtype records built in config.py; the MLA backend in backend.py plans with them (FP8 pool)."""
from .backend import ConfigPlanBackend
from .config import PlanDtypes, dtypes_for, native_dtypes
