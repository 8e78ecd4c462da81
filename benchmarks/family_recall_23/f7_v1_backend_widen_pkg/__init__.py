# vLLM v1 backend package: impl.forward hands the whole layer cache to a helper class in widen.py.
from .widen import PlaneWidener

__all__ = ["PlaneWidener"]
