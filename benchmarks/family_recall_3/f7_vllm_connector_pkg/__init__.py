from .connector import MirrorConnector

__all__ = ["MirrorConnector"]
