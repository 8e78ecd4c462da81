"""sglang FA3 MLA fallback package: the widening callables are operator.methodcaller objects made in casts."""
from .fa3_backend import FA3MLAFallbackBackend

__all__ = ["FA3MLAFallbackBackend"]
