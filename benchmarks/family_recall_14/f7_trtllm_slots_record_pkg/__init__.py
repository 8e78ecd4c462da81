"""A slotted layer record (records.py) that converts, built by attention.py from the manager."""
from .attention import RecordFallbackAttention
from .records import LayerKV

__all__ = ["LayerKV", "RecordFallbackAttention"]
