from .graph_runner import AscendGraphRunner

__all__ = ["AscendGraphRunner"]
