"""TensorRT-LLM-style attention whose reference path lives in reference.py (nested helpers)."""
from .attention import ReferenceCheckedAttention

__all__ = ["ReferenceCheckedAttention"]
