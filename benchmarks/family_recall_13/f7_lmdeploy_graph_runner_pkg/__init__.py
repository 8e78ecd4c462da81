"""lmdeploy style: a cuda graph runner that densifies caches through a convert module."""
from .graph_runner import CUDAGraphRunner

__all__ = ["CUDAGraphRunner"]
