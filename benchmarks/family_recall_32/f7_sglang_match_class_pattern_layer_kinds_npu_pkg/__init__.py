"""sglang Ascend NPU MLA fallback: layer reads typed in kinds.py, matched with class patterns, used by npu_backend.py."""
from .kinds import DenseLayer, PagedLayer, to_kernel

__all__ = ["DenseLayer", "PagedLayer", "to_kernel"]
