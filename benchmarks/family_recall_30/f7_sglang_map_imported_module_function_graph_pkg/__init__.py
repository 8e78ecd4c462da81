"""sglang MLA shadow graph runner: replay maps kv_ops.widen_layer (module imported with `from . import kv_ops`) over the pool's layers."""
from .graph_runner import MLAShadowGraphRunner

__all__ = ["MLAShadowGraphRunner"]
