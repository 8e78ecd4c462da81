"""TensorRT-LLM style: attention backend, manager and dequant ops in separate modules."""
from . import ops
from .attention import FallbackAttention

__all__ = ["ops", "FallbackAttention"]


OPS_BACKEND = "torch"


def backend_name():
    return OPS_BACKEND


def set_backend(name):
    global OPS_BACKEND
    OPS_BACKEND = name


def ops_available():
    return hasattr(ops, "dequantize_pool")
