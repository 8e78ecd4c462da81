from .graph_runner import FallbackGraphRunner

__all__ = ["FallbackGraphRunner"]
