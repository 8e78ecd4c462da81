"""A connector whose wait_for_save packs every registered cache through packing.py."""
from .connector import PackingConnector

__all__ = ["PackingConnector"]
