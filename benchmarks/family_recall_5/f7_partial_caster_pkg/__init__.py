"""lmdeploy-style utils re-exported at package level."""

from .utils import to_half

__all__ = ["to_half"]
