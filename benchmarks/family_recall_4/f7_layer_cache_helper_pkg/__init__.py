"""utils.py returns a layer's kv_cache from the forward context; impl.py casts what it returns."""
from .impl import HelperImpl

__all__ = ["HelperImpl"]
