"""lmdeploy-style package: attention.py dispatches to a quant-policy table of dequant functions in kv_quant.py."""
from .kv_quant import DEQUANT

__all__ = ["DEQUANT"]
