# lmdeploy package: the agent looks up a dequant function in a registry filled by decorators in ops.py.
from . import ops  # noqa: F401  (fills REGISTRY)
from .registry import REGISTRY
