"""vLLM-style P/D connector whose wire encodings are methods of an Enum in layouts.py."""
from .layouts import WireLayout

__all__ = ["WireLayout"]
