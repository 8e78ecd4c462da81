"""Cache views re-exported with a star import; __all__ decides what goes through."""
from .cache_views import *  # noqa: F401,F403
