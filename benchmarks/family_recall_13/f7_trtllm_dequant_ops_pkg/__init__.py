"""TensorRT-LLM style: attention backend, manager and dequant ops in separate modules."""
from . import ops
from .attention import FallbackAttention

__all__ = ["ops", "FallbackAttention"]
