"""sglang style: attention utils shared by several backends (cross-module helper)."""
from .utils import gather_layer_rows, upcast_layer_kv

__all__ = ["gather_layer_rows", "upcast_layer_kv"]
