"""sglang PD prefill: the backend module holds the pool; the stager module converts the
layer to the decode side's wire dtype."""
from . import stager

__all__ = ["stager"]
