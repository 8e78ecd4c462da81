"""CUDA graph runner whose static KV inputs come from a view class defined in kv_views."""

from .graph_runner import DenseKVGraphRunner

__all__ = ["DenseKVGraphRunner"]
