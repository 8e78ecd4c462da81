"""sglang style: attention utils shared by several backends (cross-module helper)."""
from .utils import gather_layer_rows, upcast_layer_kv

__all__ = ["gather_layer_rows", "upcast_layer_kv"]


def available_helpers():
    """Names backends may import from this package."""
    return list(__all__)


def describe():
    return {
        "upcast_layer_kv": "whole layer, key and value",
        "gather_layer_rows": "rows of the step",
    }


HELPER_VERSION = 2
