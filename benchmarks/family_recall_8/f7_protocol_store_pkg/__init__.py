from .backend import ProtoBackend
from .pool import LatentPool

__all__ = ["ProtoBackend", "LatentPool"]
