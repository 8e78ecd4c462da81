"""sglang XPU backend package: a LayerKV record built by a classmethod in kv_views.py widens the pool buffer."""
from .xpu_backend import XPUFallbackAttnBackend
from .kv_views import LayerKV

__all__ = ["XPUFallbackAttnBackend", "LayerKV"]
