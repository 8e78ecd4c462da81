"""Speculative decoding agent: engine.py drives the loop, verify.py reads the target caches."""
from .engine import SpecModelAgent

__all__ = ["SpecModelAgent"]
