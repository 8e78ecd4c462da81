from .shadow import ShadowSet
from .runner import GraphRunner

__all__ = ["ShadowSet", "GraphRunner"]
