"""lmdeploy Ascend (dlinfer) graph runner package: the runner's bases are picked at import time."""
from .runner import AscendDenseGraphRunner

__all__ = ["AscendDenseGraphRunner"]
