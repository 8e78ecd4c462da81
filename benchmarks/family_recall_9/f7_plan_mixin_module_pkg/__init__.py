"""CL002: plan calls live in a mixin module; the backend module sets the dtypes they read."""
from .backend import MixinPlanMLABackend
