"""Compiled helper ops in one module, a vLLM-style attention impl in another."""
from .ops import cast_like, dequant_all

__all__ = ["cast_like", "dequant_all"]
