"""An MLA fallback backend whose latent/rope views are made in another module."""
from .backend import TorchMLAFallbackBackend
from .views import latent_and_rope, rows_of

__all__ = ["TorchMLAFallbackBackend", "latent_and_rope", "rows_of"]
