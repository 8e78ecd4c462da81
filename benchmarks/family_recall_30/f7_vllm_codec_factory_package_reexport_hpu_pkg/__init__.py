"""vLLM Gaudi (HPU): hpu_impl gets make_codec from the package itself (`from . import make_codec`); the FP8 codec widens whole caches."""
from .codecs import make_codec

__all__ = ["make_codec"]
