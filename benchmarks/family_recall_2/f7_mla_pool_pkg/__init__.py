from .pool import LatentArenaPool, paged_latent
from . import views

__all__ = ["LatentArenaPool", "paged_latent", "views"]
