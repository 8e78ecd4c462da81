from .sinks import layer_sink

__all__ = ["layer_sink"]
